package syntax

import (
	"bytes"
	"context"
	"testing"
	"time"

	sitter "github.com/smacker/go-tree-sitter"
)

func msPerOp(d time.Duration, n int) float64 {
	return float64(d.Microseconds()) / 1000 / float64(n)
}

// BenchmarkColdParseAsm6 parses cmd/internal/obj/x86/asm6.go from scratch
// with Parse and with the bare binding (a new parser and ParseCtx), the two
// interleaved in the same run; the bar is Parse at most 1.05x bare.
func BenchmarkColdParseAsm6(b *testing.B) {
	src := goroot(b, "cmd/internal/obj/x86/asm6.go")
	lang := registry["go"].ts
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var ours, bare time.Duration
	b.ResetTimer()
	for range b.N {
		start := time.Now()
		p := sitter.NewParser()
		p.SetLanguage(lang)
		bt, err := p.ParseCtx(ctx, nil, src)
		bare += time.Since(start)
		if err != nil {
			b.Fatal(err)
		}
		bt.Close()
		p.Close()

		start = time.Now()
		tree, err := Parse(ctx, Request{Source: src, Language: "go"})
		ours += time.Since(start)
		if err != nil {
			b.Fatal(err)
		}
		tree.Close()
	}
	b.ReportMetric(msPerOp(ours, b.N), "ours-ms")
	b.ReportMetric(msPerOp(bare, b.N), "bare-ms")
	b.ReportMetric(float64(ours)/float64(bare), "ours/bare")
}

// BenchmarkIncrementalOneCharServer reparses net/http/server.go after a
// one-character edit, interleaving three ways in each iteration: the bare
// binding (copy the prior tree, Edit, ParseCtx), Parse with explicit edits,
// and Parse computing the edit itself. Bar: Parse under 1 ms.
func BenchmarkIncrementalOneCharServer(b *testing.B) {
	src := goroot(b, "net/http/server.go")
	at := bytes.Index(src, []byte("func (c *conn) serve("))
	at += len("func (c *conn) serve(") - 2 // inside the method name
	next := append(append(append([]byte(nil), src[:at]...), 'X'), src[at:]...)
	sp := pointAt(src, at)
	e := Edit{StartByte: uint32(at), OldEndByte: uint32(at), NewEndByte: uint32(at + 1),
		StartPoint: sp, OldEndPoint: sp, NewEndPoint: Point{sp.Row, sp.Column + 1}}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	prior, err := Parse(ctx, Request{Source: src, Language: "go"})
	if err != nil {
		b.Fatal(err)
	}
	defer prior.Close()

	p := sitter.NewParser()
	defer p.Close()
	p.SetLanguage(registry["go"].ts)
	withEdits := Request{Source: next, Language: "go", Prior: prior, Edits: []Edit{e}}
	autoDiff := Request{Source: next, Language: "go", Prior: prior}
	var bare, edits, auto time.Duration
	b.ResetTimer()
	for range b.N {
		start := time.Now()
		old := prior.ts.Copy()
		old.Edit(e.input())
		bt, err := p.ParseCtx(ctx, old, next)
		bare += time.Since(start)
		if err != nil {
			b.Fatal(err)
		}
		bt.Close()
		old.Close()

		for _, c := range []struct {
			req Request
			sum *time.Duration
		}{{withEdits, &edits}, {autoDiff, &auto}} {
			start = time.Now()
			tree, err := Parse(ctx, c.req)
			*c.sum += time.Since(start)
			if err != nil {
				b.Fatal(err)
			}
			tree.Close()
		}
	}
	b.ReportMetric(msPerOp(edits, b.N), "edits-ms")
	b.ReportMetric(msPerOp(auto, b.N), "auto-diff-ms")
	b.ReportMetric(msPerOp(bare, b.N), "bare-ms")
}

// BenchmarkHighlights200Rows runs Highlights over rows [1000, 1200) of
// net/http/server.go, interleaved with the floor the binding sets: running
// the same compiled query over the same rows and reading each capture's
// range, nothing else. "fresh-tree" uses a new clone each time, as after
// every edit; "other-window" alternates two windows on one tree (the
// binding's node cache is warm, the result cache never hits); "redraw" asks
// for the same window again (the result cache hits). Bar: under 1 ms.
func BenchmarkHighlights200Rows(b *testing.B) {
	src := goroot(b, "net/http/server.go")
	tree, err := Parse(context.Background(), Request{Source: src, Language: "go"})
	if err != nil {
		b.Fatal(err)
	}
	defer tree.Close()
	cq, err := registry["go"].highlightsQuery()
	if err != nil {
		b.Fatal(err)
	}
	bareQuery := func(t *Tree) {
		qc := sitter.NewQueryCursor()
		defer qc.Close()
		qc.SetPointRange(sitter.Point{Row: 1000}, sitter.Point{Row: 1200})
		qc.Exec(cq.q, t.ts.RootNode())
		for {
			m, ok := qc.NextMatch()
			if !ok {
				return
			}
			for _, c := range m.Captures {
				_, _ = c.Node.StartByte(), c.Node.EndByte()
			}
		}
	}
	for _, mode := range []string{"fresh-tree", "other-window", "redraw"} {
		b.Run(mode, func(b *testing.B) {
			var ours, bare time.Duration
			var n int
			for i := range b.N {
				ot, bt := tree, tree
				if mode == "fresh-tree" {
					ot, bt = tree.Clone(), tree.Clone()
				}
				start := time.Now()
				bareQuery(bt)
				bare += time.Since(start)
				start = time.Now()
				from := uint32(1000)
				if mode == "other-window" && i%2 == 1 {
					from = 1001
				}
				spans, err := ot.Highlights(from, from+200)
				ours += time.Since(start)
				if err != nil {
					b.Fatal(err)
				}
				n = len(spans)
				if mode == "fresh-tree" {
					ot.Close()
					bt.Close()
				}
			}
			b.ReportMetric(msPerOp(ours, b.N), "ours-ms")
			b.ReportMetric(msPerOp(bare, b.N), "bare-query-ms")
			b.ReportMetric(float64(n), "spans")
		})
	}
}
