package parsejob

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	sitter "github.com/smacker/go-tree-sitter"
	"github.com/smacker/go-tree-sitter/golang"
	"github.com/stretchr/testify/require"

	"github.com/pmacs-go/pmacs-go/internal/testenv"
	"github.com/pmacs-go/pmacs-go/runtime"
	"github.com/pmacs-go/pmacs-go/syntax"
)

func gorootFile(b *testing.B, rel string) []byte {
	b.Helper()
	root := testenv.GoSrcOrSkip(b)
	src, err := os.ReadFile(filepath.Join(root, rel))
	if err != nil {
		b.Skipf("GOROOT source not available: %v", err)
	}
	return src
}

// percentile returns the p-th percentile (0..100) of ds, sorting it.
func percentile(ds []time.Duration, p float64) time.Duration {
	slices.Sort(ds)
	return ds[int(float64(len(ds)-1)*p/100)]
}

// settleParse dispatches req and waits for its tree the way the editor loop
// does, returning the tree.
func settleParse(b *testing.B, rt *runtime.Runtime, req syntax.Request) *syntax.Tree {
	id := Dispatch(rt, req, runtime.DispatchOptions{})
	for !rt.IsComplete(id) {
		<-rt.Ready()
		rt.Tick()
	}
	t := TakeTree(rt, id)
	o, _ := rt.TakeResult(id)
	if t == nil {
		b.Fatalf("parse failed: %v", o.Err)
	}
	return t
}

// BenchmarkParseColdThroughRuntime: wall time of a cold parse of asm6.go
// dispatched through the runtime (heavy lane, handoff, Tick) against the
// bare binding on the calling goroutine, interleaved in one run (issue 4:
// at most 1.05x bare).
func BenchmarkParseColdThroughRuntime(b *testing.B) {
	src := gorootFile(b, "cmd/internal/obj/x86/asm6.go")
	rt, err := runtime.New(runtime.Options{})
	require.NoError(b, err)
	defer rt.Close()
	settleParse(b, rt, syntax.Request{Source: src, Language: "go"}).Close()
	var ours, bare time.Duration
	for range b.N {
		start := time.Now()
		p := sitter.NewParser()
		p.SetLanguage(golang.GetLanguage())
		bt, err := p.ParseCtx(context.Background(), nil, src)
		require.NoError(b, err)
		bare += time.Since(start)
		bt.Close()
		p.Close()

		start = time.Now()
		settleParse(b, rt, syntax.Request{Source: src, Language: "go"}).Close()
		ours += time.Since(start)
	}
	b.ReportMetric(float64(ours.Microseconds())/1000/float64(b.N), "runtime-ms")
	b.ReportMetric(float64(bare.Microseconds())/1000/float64(b.N), "bare-ms")
	b.ReportMetric(float64(ours)/float64(bare), "ratio")
}

// BenchmarkParseIncrementalThroughRuntime: a one-character edit of
// net/http/server.go reparsed through the runtime against the previous tree
// (issue 4: at most 1 ms).
func BenchmarkParseIncrementalThroughRuntime(b *testing.B) {
	src := gorootFile(b, "net/http/server.go")
	at := bytes.Index(src, []byte("func (c *conn) serve(")) + len("func (c *conn) se")
	next := append(append(append([]byte(nil), src[:at]...), 'X'), src[at:]...)
	rt, err := runtime.New(runtime.Options{})
	require.NoError(b, err)
	defer rt.Close()
	prior := settleParse(b, rt, syntax.Request{Source: src, Language: "go"})
	defer prior.Close()
	var total time.Duration
	lat := make([]time.Duration, 0, b.N)
	for range b.N {
		start := time.Now()
		t := settleParse(b, rt, syntax.Request{Source: next, Language: "go", Prior: prior})
		d := time.Since(start)
		total += d
		lat = append(lat, d)
		t.Close()
	}
	b.ReportMetric(float64(total.Microseconds())/1000/float64(b.N), "ms/reparse")
	b.ReportMetric(float64(percentile(lat, 50).Microseconds())/1000, "p50-ms")
}
