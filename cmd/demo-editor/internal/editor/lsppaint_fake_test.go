package editor

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gdamore/tcell/v2"
	"github.com/stretchr/testify/require"

	"github.com/pmacs-go/pmacs-go/lsp/lsptest"
)

// paintFakeEnv names the log file of the language server that paints: when
// it is set, the test binary is that server (see TestMain). It offers
// semantic tokens (range, full and full/delta; its tokens a small lexer's
// reading of the text it was sent) and inlay hints (one at the end of each
// row asked, naming the row), and logs the rows of every range it is asked
// for: "inlay FROM TO", "semantic/range FROM TO", "semantic/full ROWS".
const paintFakeEnv = "PMACS_EDITOR_PAINT_FAKE_LSP_LOG"

// paintLegend is the fake's token types; modifiers: "readonly".
var paintLegend = []string{"keyword", "function", "variable", "number", "string", "comment", "type"}

func runPaintFakeLSPIfAsked() {
	logPath := os.Getenv(paintFakeEnv)
	if logPath == "" {
		return
	}
	logf, err := os.OpenFile(logPath, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	s := &paintFake{out: bufio.NewWriterSize(os.Stdout, 1<<16), log: logf, docs: map[string][]string{}, results: map[string][]uint32{}}
	s.serve(bufio.NewReaderSize(os.Stdin, 1<<16))
	os.Exit(0)
}

type paintFake struct {
	mu      sync.Mutex // the writer: slow answers are written from timers
	out     *bufio.Writer
	log     *os.File
	docs    map[string][]string // uri -> rows
	results map[string][]uint32 // uri -> the last full data sent, for deltas
	n       int
}

func (s *paintFake) reply(id json.RawMessage, result any) {
	s.mu.Lock()
	defer s.mu.Unlock()
	_ = lsptest.WriteMessage(s.out, map[string]any{"jsonrpc": "2.0", "id": id, "result": result})
	s.out.Flush()
}

func (s *paintFake) logf(format string, args ...any) {
	s.mu.Lock()
	defer s.mu.Unlock()
	fmt.Fprintf(s.log, format+"\n", args...)
}

func (s *paintFake) serve(in *bufio.Reader) {
	for {
		body, err := lsptest.ReadMessage(in)
		if err != nil {
			return
		}
		var m struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
			Params json.RawMessage `json:"params"`
		}
		if json.Unmarshal(body, &m) != nil {
			continue
		}
		var p struct {
			TextDocument struct {
				URI  string `json:"uri"`
				Text string `json:"text"`
			} `json:"textDocument"`
			ContentChanges []struct {
				Range *struct {
					Start struct{ Line, Character int } `json:"start"`
					End   struct{ Line, Character int } `json:"end"`
				} `json:"range"`
				Text string `json:"text"`
			} `json:"contentChanges"`
			Range struct {
				Start struct{ Line int } `json:"start"`
				End   struct{ Line int } `json:"end"`
			} `json:"range"`
			PreviousResultID string          `json:"previousResultId"`
			ID               json.RawMessage `json:"id"`
		}
		_ = json.Unmarshal(m.Params, &p)
		uri := p.TextDocument.URI
		switch m.Method {
		case "initialize":
			s.reply(m.ID, map[string]any{"capabilities": map[string]any{
				"textDocumentSync": 2,
				"semanticTokensProvider": map[string]any{"range": true, "full": map[string]any{"delta": true},
					"legend": map[string]any{"tokenTypes": paintLegend, "tokenModifiers": []string{"readonly"}}},
				"inlayHintProvider": true,
			}})
		case "textDocument/didOpen":
			s.docs[uri] = strings.Split(p.TextDocument.Text, "\n")
		case "textDocument/didChange":
			rows := s.docs[uri]
			for _, ch := range p.ContentChanges {
				if ch.Range == nil {
					rows = strings.Split(ch.Text, "\n")
					continue
				}
				a, b := ch.Range.Start, ch.Range.End
				head, tail := rows[a.Line][:a.Character], rows[b.Line][b.Character:]
				mid := strings.Split(head+ch.Text+tail, "\n")
				rows = append(rows[:a.Line], append(mid, rows[b.Line+1:]...)...)
			}
			s.docs[uri] = rows
		case "textDocument/semanticTokens/range":
			s.logf("semantic/range %d %d", p.Range.Start.Line, p.Range.End.Line)
			s.reply(m.ID, map[string]any{"data": paintTokens(s.docs[uri], p.Range.Start.Line, p.Range.End.Line)})
		case "$/cancelRequest":
			s.logf("cancel %s", p.ID)
		case "textDocument/semanticTokens/full", "textDocument/semanticTokens/full/delta":
			rows := s.docs[uri]
			s.logf("semantic/full %d", len(rows))
			data := paintTokens(rows, 0, len(rows))
			if slices.ContainsFunc(rows, func(r string) bool { return strings.Contains(r, "SLOW") }) {
				// A slow server: the answer comes 300 ms later, in full,
				// whether or not it was cancelled meanwhile.
				id := m.ID
				time.AfterFunc(300*time.Millisecond, func() { s.reply(id, map[string]any{"data": data}) })
				break
			}
			old, ok := s.results[uri]
			s.n++
			id := strconv.Itoa(s.n)
			s.results[uri] = data
			if m.Method == "textDocument/semanticTokens/full" || !ok || p.PreviousResultID != strconv.Itoa(s.n-1) {
				s.reply(m.ID, map[string]any{"resultId": id, "data": data})
				break
			}
			pre := 0
			for pre < len(old) && pre < len(data) && old[pre] == data[pre] {
				pre++
			}
			suf := 0
			for suf < len(old)-pre && suf < len(data)-pre && old[len(old)-1-suf] == data[len(data)-1-suf] {
				suf++
			}
			s.reply(m.ID, map[string]any{"resultId": id, "edits": []any{map[string]any{
				"start": pre, "deleteCount": len(old) - pre - suf, "data": data[pre : len(data)-suf]}}})
		case "textDocument/inlayHint":
			s.logf("inlay %d %d", p.Range.Start.Line, p.Range.End.Line)
			rows := s.docs[uri]
			hints := []any{}
			for r := p.Range.Start.Line; r <= p.Range.End.Line && r < len(rows); r++ {
				hints = append(hints, map[string]any{"position": map[string]any{"line": r, "character": len(rows[r])},
					"label": []any{map[string]any{"value": "row"}, map[string]any{"value": strconv.Itoa(r)}}, "paddingLeft": true, "kind": 1})
			}
			s.reply(m.ID, hints)
		case "shutdown":
			s.reply(m.ID, nil)
		case "exit":
			return
		default:
			if len(m.ID) > 0 {
				s.reply(m.ID, nil)
			}
		}
	}
}

// paintTokens is a small lexer's tokens of rows [from, to) (ASCII text):
// Go keywords, names (a function when a parenthesis follows), numbers,
// strings and line comments, in the protocol's relative encoding.
func paintTokens(rows []string, from, to int) []uint32 {
	keywords := map[string]bool{"package": true, "import": true, "func": true, "return": true, "var": true,
		"const": true, "type": true, "struct": true, "if": true, "for": true, "range": true, "else": true}
	var data []uint32
	prevLine, prevCol := 0, 0
	add := func(line, col, n, typ int) {
		if line != prevLine {
			prevCol = 0
		}
		data = append(data, uint32(line-prevLine), uint32(col-prevCol), uint32(n), uint32(typ), 0)
		prevLine, prevCol = line, col
	}
	for r := from; r < to && r < len(rows); r++ {
		line := rows[r]
		for i := 0; i < len(line); {
			c := line[i]
			switch {
			case c == '/' && i+1 < len(line) && line[i+1] == '/':
				add(r, i, len(line)-i, 5)
				i = len(line)
			case c == '"':
				j := i + 1
				for j < len(line) && line[j] != '"' {
					j++
				}
				j = min(j+1, len(line))
				add(r, i, j-i, 4)
				i = j
			case c >= '0' && c <= '9':
				j := i
				for j < len(line) && line[j] >= '0' && line[j] <= '9' {
					j++
				}
				add(r, i, j-i, 3)
				i = j
			case c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z':
				j := i
				for j < len(line) && (line[j] == '_' || line[j] >= 'a' && line[j] <= 'z' || line[j] >= 'A' && line[j] <= 'Z' || line[j] >= '0' && line[j] <= '9') {
					j++
				}
				typ := 2
				switch {
				case keywords[line[i:j]]:
					typ = 0
				case j < len(line) && line[j] == '(':
					typ = 1
				}
				add(r, i, j-i, typ)
				i = j
			default:
				i++
			}
		}
	}
	if data == nil {
		data = []uint32{}
	}
	return data
}

// usePaintFakeLSP makes the editor find this test binary, run as the
// painting server, when it looks for gopls; it returns the server's log.
func usePaintFakeLSP(t testing.TB) string {
	t.Helper()
	exe, err := os.Executable()
	require.NoError(t, err)
	dir := t.TempDir()
	logPath := filepath.Join(dir, "paint-lsp.log")
	script := fmt.Sprintf("#!/bin/sh\nexec env %s=%q GORACE=atexit_sleep_ms=0 %q \"$@\"\n", paintFakeEnv, logPath, exe)
	require.NoError(t, os.WriteFile(filepath.Join(dir, "gopls"), []byte(script), 0o755))
	t.Setenv("PATH", dir+string(os.PathListSeparator)+os.Getenv("PATH"))
	return logPath
}

// paintLog reads the painting server's log: each line's words.
func paintLog(t testing.TB, path string) [][]string {
	t.Helper()
	data, err := os.ReadFile(path)
	if os.IsNotExist(err) {
		return nil
	}
	require.NoError(t, err)
	var out [][]string
	for _, l := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		if f := strings.Fields(l); len(f) > 0 {
			out = append(out, f)
		}
	}
	return out
}

// Inlay hints of a 100,000-row file are asked for the visible rows only,
// never the whole file, and again (for the rows then visible) after a
// jump far down; the hints shown are all on visible rows, drawn after the
// text of their row.
func TestInlayHintsAskOnlyTheVisibleRows(t *testing.T) {
	logPath := usePaintFakeLSP(t)
	dir := t.TempDir()
	path := filepath.Join(dir, "big.go")
	var sb strings.Builder
	sb.WriteString("package m\n")
	for i := 1; i < 100000; i++ {
		fmt.Fprintf(&sb, "var v%d = %d\n", i, i)
	}
	require.NoError(t, os.WriteFile(path, []byte(sb.String()), 0o644))
	h := startEditor(t, Options{Path: path})
	visible := func(e *session) (int, int) { return e.cur.top, e.cur.top + e.windowHeight() }
	check := func(what string, wantRow int) {
		t.Helper()
		h.untilLong(what, func(e *session) bool {
			top, bottom := visible(e)
			if wantRow < top || wantRow >= bottom {
				return false
			}
			for _, in := range e.cur.inlays {
				if in.at.Row == wantRow {
					return true
				}
			}
			return false
		})
		h.e.call(func() {
			top, bottom := visible(h.e)
			for _, in := range h.e.cur.inlays {
				require.True(t, in.at.Row >= top && in.at.Row < bottom, "hint on row %d, outside the visible rows [%d, %d)", in.at.Row, top, bottom)
				require.Equal(t, fmt.Sprintf(" row%d", in.at.Row), in.text)
				require.Equal(t, len(h.e.cur.lines.row(in.at.Row)), in.at.Col, "at the end of its row")
			}
		})
		for _, l := range paintLog(t, logPath) {
			if l[0] != "inlay" {
				continue
			}
			from, _ := strconv.Atoi(l[1])
			to, _ := strconv.Atoi(l[2])
			var height int
			h.e.call(func() { height = h.e.windowHeight() })
			require.LessOrEqual(t, to-from, height+1, "a request of rows %d to %d: about a window's rows, never the file", from, to)
		}
	}
	check("hints on the first rows", 3)
	h.waitText("var v3 = 3 row3")
	h.gotoLine("60000")
	check("hints around row 60,000", 59999)
	h.waitText("var v59999 = 59999 row59999")
	var asked int
	for _, l := range paintLog(t, logPath) {
		if l[0] == "inlay" {
			asked++
		}
	}
	require.Less(t, asked, 20, "debounced: a few requests, not one per frame")
}

// Against a slow server, each keystroke's semantic tokens request
// supersedes the last ($/cancelRequest), the answers that still come for
// older text are not painted, and the layer at the end is the one for the
// text as typed: the comment's token covers the whole edited row.
func TestSemanticTokensOfOlderTextAreNeverPainted(t *testing.T) {
	logPath := usePaintFakeLSP(t)
	dir := t.TempDir()
	path := filepath.Join(dir, "slow.go")
	require.NoError(t, os.WriteFile(path, []byte("package m\n\n// SLOW\nvar x = 1\n"), 0o644))
	h := startEditor(t, Options{Path: path})
	h.untilLong("the first paint", func(e *session) bool { return e.cur.path == path && len(e.cur.sem.row(2)) > 0 })
	h.gotoLine("3")
	h.key(tcell.KeyEnd)
	h.typeText("abcdef")
	h.untilLong("the last keystroke's tokens painted", func(e *session) bool {
		b := e.cur
		sp := b.sem.row(2)
		return b.lines.row(2) == "// SLOWabcdef" && b.semRev == b.rev && len(sp) == 1 && sp[0].end == len(b.lines.row(2))
	})
	cancels := 0
	for _, l := range paintLog(t, logPath) {
		if l[0] == "cancel" {
			cancels++
		}
	}
	require.Positive(t, cancels, "a keystroke cancels the request of the text before it")
}
