package syntax

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"time"

	sitter "github.com/smacker/go-tree-sitter"
)

// markdownInjectionQuery finds what the markdown block grammar leaves to
// other grammars: inline content, and fenced code with a language tag.
const markdownInjectionQuery = `
(inline) @inline
(fenced_code_block (info_string (language) @tag) (code_fence_content) @content)
`

var (
	mdInjectOnce  sync.Once
	mdInjectQuery *sitter.Query
	mdInjectErr   error
)

func markdownInjections() (*sitter.Query, error) {
	mdInjectOnce.Do(func() {
		mdInjectQuery, mdInjectErr = sitter.NewQuery([]byte(markdownInjectionQuery), registry["markdown"].ts)
	})
	return mdInjectQuery, mdInjectErr
}

// readChunk bounds how much text one read callback hands to tree-sitter; the
// binding copies every chunk into C memory.
const readChunk = 64 << 10

// injectMarkdown parses every inline node of t with the inline grammar and
// every fenced code block whose tag aliases names with the tagged grammar.
// Injected trees are parsed fresh even on an incremental reparse: they are
// small, and matching them to the prior tree's would cost about as much.
func injectMarkdown(ctx context.Context, t *Tree, aliases map[string]string) error {
	q, err := markdownInjections()
	if err != nil {
		return err
	}
	qc := sitter.NewQueryCursor()
	defer qc.Close()
	qc.Exec(q, t.ts.RootNode())
	for {
		m, ok := qc.NextMatch()
		if !ok {
			return nil
		}
		var target *Language
		var content *sitter.Node
		switch q.CaptureNameForId(m.Captures[0].Index) {
		case "inline":
			target, content = registry[markdownInline], m.Captures[0].Node
		default:
			var tag string
			for _, c := range m.Captures {
				switch q.CaptureNameForId(c.Index) {
				case "tag":
					tag = string(t.source[c.Node.StartByte():c.Node.EndByte()])
				case "content":
					content = c.Node
				}
			}
			name, ok := aliases[tag]
			if !ok {
				name, ok = aliases[strings.ToLower(tag)]
			}
			if !ok || content == nil {
				continue
			}
			target = registry[name] // names were validated by Parse
		}
		inj, err := parseInjection(ctx, t, target, content)
		if err != nil {
			return err
		}
		if inj != nil {
			t.injections = append(t.injections, Injection{
				Language: target.name, StartByte: content.StartByte(), EndByte: content.EndByte(), Tree: inj,
			})
			t.duration += inj.duration
		}
	}
}

// parseInjection parses the text of node, minus the text of its named
// children (the block grammar's continuation markers such as "> " in a
// quote), with lang. Positions in the result are document positions.
func parseInjection(ctx context.Context, t *Tree, lang *Language, node *sitter.Node) (*Tree, error) {
	ranges := contentRanges(node)
	if len(ranges) == 0 {
		return nil, nil
	}
	end := node.EndByte()
	src := t.source
	read := func(offset uint32, _ sitter.Point) []byte {
		if offset >= end {
			return nil
		}
		return src[offset:min(end, offset+readChunk)]
	}
	p := lang.ranged.get()
	defer lang.ranged.put(p)
	p.p.SetIncludedRanges(ranges)
	start := time.Now()
	ts, err := p.run(ctx, func(context.Context) (*sitter.Tree, error) {
		// ParseInput has no cancellation of its own; p.run drives the flag.
		return p.p.ParseInput(nil, sitter.Input{Read: read, Encoding: sitter.InputEncodingUTF8}), nil
	})
	if err != nil {
		return nil, fmt.Errorf("%s at byte %d: %w", lang.name, node.StartByte(), err)
	}
	return &Tree{
		lang: lang, source: src, ts: ts, duration: time.Since(start),
		startRow: node.StartPoint().Row, endRow: node.EndPoint().Row,
	}, nil
}

// contentRanges returns node's range with its named children's ranges cut
// out, dropping empty pieces. Anonymous children (the block grammar's
// punctuation tokens inside an inline node) are part of the content.
func contentRanges(node *sitter.Node) []sitter.Range {
	var ranges []sitter.Range
	cur := sitter.Range{StartByte: node.StartByte(), StartPoint: node.StartPoint()}
	for i := 0; i < int(node.NamedChildCount()); i++ {
		child := node.NamedChild(i)
		if child.StartByte() > cur.StartByte {
			cur.EndByte, cur.EndPoint = child.StartByte(), child.StartPoint()
			ranges = append(ranges, cur)
		}
		if child.EndByte() > cur.StartByte {
			cur.StartByte, cur.StartPoint = child.EndByte(), child.EndPoint()
		}
	}
	if node.EndByte() > cur.StartByte {
		cur.EndByte, cur.EndPoint = node.EndByte(), node.EndPoint()
		ranges = append(ranges, cur)
	}
	return ranges
}
