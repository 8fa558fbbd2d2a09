package parsejob

import (
	"sync"

	"github.com/pmacs-go/pmacs-go/runtime"
	"github.com/pmacs-go/pmacs-go/syntax"
)

// handoff carries parse trees from workers to the main goroutine. A tree is
// not serialisable, so it is the one thing that crosses outside the bus: the
// worker parks it here under the job id and then sends its result; the main
// goroutine takes it after Tick. Once parked, the worker never touches the
// tree again.
type handoff struct {
	mu    sync.Mutex
	trees map[runtime.JobID]*syntax.Tree
}

// handoffOf returns rt's handoff, made on first use.
func handoffOf(rt *runtime.Runtime) *handoff {
	return runtime.StateOf(rt, Kind, func() *handoff {
		return &handoff{trees: make(map[runtime.JobID]*syntax.Tree)}
	})
}

func (h *handoff) put(id runtime.JobID, t *syntax.Tree) {
	h.mu.Lock()
	h.trees[id] = t
	h.mu.Unlock()
}

func (h *handoff) take(id runtime.JobID) *syntax.Tree {
	h.mu.Lock()
	defer h.mu.Unlock()
	t := h.trees[id]
	delete(h.trees, id)
	return t
}

// drop discards a tree nobody took, releasing its C memory now.
func (h *handoff) drop(id runtime.JobID) {
	if t := h.take(id); t != nil {
		t.Close()
	}
}

// Held counts the trees waiting: the runtime's Stats.Held includes them.
func (h *handoff) Held() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return len(h.trees)
}
