package editor

import (
	"os"
	goruntime "runtime"
	"runtime/debug"
	"runtime/metrics"
	"sync/atomic"
)

// The collector's pace with large files.
//
// relaxGC runs the collector a quarter as often while the editor runs
// (GOGC=400): with a live heap of tens of MiB the headroom is cheap, and it
// keeps mark assists out of a streaming search's frames. With a 60 MB file
// open the live heap is about 1.3 times the file (its text, the rows'
// index, the Lua state), and 400 lets the heap grow to five times that
// before a collection: five in-buffer searches over the file took the
// resident size to 10.7 times the file. So once a large file has loaded,
// or a large buffer has closed, fitGC collects (on a helper goroutine),
// reads the live heap, and, for a live heap over relaxedLiveBytes, sets
// the percentage that allows gcHeadroom of growth between collections:
// about 31 with the 60 MB file open. The headroom is small because a
// collection of such a heap is cheap: the text is one string the collector
// marks without scanning, and the rows are an index of offsets, not a
// pointer per row. A smaller live heap (the file closed again)
// gets relaxGC's pace back. The percentage stays proportional to the live
// heap, so a heap that grows later (grep results) never makes the
// collector run back to back, as a fixed memory limit below the live heap
// would.
const (
	relaxedGCPercent = 400
	minGCPercent     = 25
	gcHeadroom       = 24 << 20
	// relaxedLiveBytes is bigTextBytes: a file that large is about as
	// much live heap (its rows cost little beyond its text), and it must
	// get the fitted pace, not five times its size.
	relaxedLiveBytes = bigTextBytes
	// bigTextBytes is the buffer size whose load or close refits the pace.
	bigTextBytes = 16 << 20
)

// fittedGCPercent is the percentage fitGC last set (0 for none), so a refit
// knows the setting is still its own or relaxGC's.
var fittedGCPercent atomic.Int64

func readMetric(name string) uint64 {
	s := []metrics.Sample{{Name: name}}
	metrics.Read(s)
	if s[0].Value.Kind() != metrics.KindUint64 {
		return 0
	}
	return s[0].Value.Uint64()
}

// fitGC refits the collector's pace to the live heap, unless the user set
// GOGC or the pace is not relaxGC's (tests that run the loop without Run).
func (e *session) fitGC() {
	if os.Getenv("GOGC") != "" {
		return
	}
	if now := int64(readMetric("/gc/gogc:percent")); now != relaxedGCPercent && now != fittedGCPercent.Load() {
		return
	}
	e.goIO(func() func() {
		goruntime.GC()
		live := max(readMetric("/gc/heap/live:bytes"), 1)
		pct := int64(relaxedGCPercent)
		if live > relaxedLiveBytes {
			pct = int64(min(max(100*gcHeadroom/live, minGCPercent), relaxedGCPercent))
		}
		fittedGCPercent.Store(pct)
		debug.SetGCPercent(int(pct))
		return func() {}
	})
}
