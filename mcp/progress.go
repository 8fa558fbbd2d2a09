package mcp

import (
	"strconv"

	"github.com/pmacs-go/pmacs-go/runtime"
)

// String is the progress as a *workers* row shows it: "2/5 indexing",
// "40 indexing" when the total is unknown, the message alone when there is
// no count.
func (p Progress) String() string {
	n := strconv.FormatFloat(p.Progress, 'g', -1, 64)
	if p.Total > 0 {
		n += "/" + strconv.FormatFloat(p.Total, 'g', -1, 64)
	}
	if p.Message == "" {
		return n
	}
	if p.Progress == 0 && p.Total == 0 {
		return p.Message
	}
	return n + " " + p.Message
}

// noteProgress queues a call's latest progress line for the next Poll,
// which hands it to Runtime.SetExternalProgress; only the latest per call is
// kept, so a chatty server costs one entry per call. Safe from any
// goroutine.
func (h *Host) noteProgress(id runtime.JobID, text string) {
	h.mu.Lock()
	if h.progress == nil {
		h.progress = make(map[runtime.JobID]string)
	}
	h.progress[id] = text
	h.mu.Unlock()
	h.signal()
}

// pollProgress hands the queued progress lines to the Runtime. Main
// goroutine only.
func (h *Host) pollProgress() {
	h.mu.Lock()
	batch := h.progress
	h.progress = nil
	h.mu.Unlock()
	for id, text := range batch {
		h.rt.SetExternalProgress(id, text)
	}
}
