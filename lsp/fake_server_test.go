package lsp

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/pmacs-go/pmacs-go/lsp/lsptest"
)

// The fake language server is this test binary re-executed with
// fakeServerEnv set (see TestMain). It speaks LSP over stdio with its own
// framing code, independent of the client's, and replays the cases the
// tests need by method name.
const (
	fakeServerEnv    = "PMACS_LSP_FAKE_SERVER"
	fakeInitDelayEnv = "PMACS_LSP_FAKE_INIT_DELAY_MS"
	fakeNoShutdown   = "PMACS_LSP_FAKE_IGNORE_SHUTDOWN"
	fakeStartsEnv    = "PMACS_LSP_FAKE_STARTS"     // a file each start appends a line to
	fakeCrashInitEnv = "PMACS_LSP_FAKE_CRASH_INIT" // exit 4 on initialize
	fakeBadInitEnv   = "PMACS_LSP_FAKE_BAD_INIT"   // answer initialize with a result that does not decode
	fakeCapsEnv      = "PMACS_LSP_FAKE_CAPS"       // the capabilities initialize answers, as JSON
	// fakeInitGateEnv names a directory: on initialize the server creates
	// got-initialize there, and answers once the file go appears.
	fakeInitGateEnv = "PMACS_LSP_FAKE_INIT_GATE"
	// fakeIgnoreTermEnv makes the server ignore SIGTERM (the Go runtime
	// does not keep an inherited SIG_IGN for it).
	fakeIgnoreTermEnv = "PMACS_LSP_FAKE_IGNORE_TERM"
)

type fakeMsg struct {
	ID     json.RawMessage `json:"id,omitempty"`
	Method string          `json:"method,omitempty"`
	Params json.RawMessage `json:"params,omitempty"`
	Result json.RawMessage `json:"result,omitempty"`
	Error  json.RawMessage `json:"error,omitempty"`
}

type fakeServer struct {
	out       *bufio.Writer
	methods   []string          // every method received, in order
	byID      map[string]string // request id -> method
	cancelled []string          // methods of the requests $/cancelRequest named
	docs      map[string]*fakeDoc
	changes   int
	nextID    int
	// awaiting collects the replies to the server's own requests made for
	// one fake/serverRequests call.
	awaiting map[string]int
	replies  []json.RawMessage
	origID   json.RawMessage
	// heldID is a request answered later (fake/progress with a token).
	heldID json.RawMessage
	// pullPrev is the previousResultId of every textDocument/diagnostic
	// ("" when absent) and workspace/diagnostic (its ids joined), in order.
	pullPrev []string
	// watchCaps is what initialize announced of
	// workspace.didChangeWatchedFiles, watched every change
	// didChangeWatchedFiles told (fake/watched returns both).
	watchCaps any
	watched   []any
	// prop holds the property test's documents (semantic_prop_test.go).
	prop map[string]*propServerDoc
}

type fakeDoc struct {
	Text    string `json:"text"`
	Version int    `json:"version"`
}

func runFakeServer() {
	if os.Getenv(fakeIgnoreTermEnv) != "" {
		signal.Ignore(syscall.SIGTERM)
	}
	if f := os.Getenv(fakeStartsEnv); f != "" {
		if fh, err := os.OpenFile(f, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644); err == nil {
			fmt.Fprintln(fh, os.Getpid())
			fh.Close()
		}
	}
	s := &fakeServer{out: bufio.NewWriterSize(os.Stdout, 1<<16), byID: map[string]string{}, docs: map[string]*fakeDoc{}}
	r := bufio.NewReaderSize(os.Stdin, 1<<16)
	for {
		body, err := lsptest.ReadMessage(r)
		if err != nil {
			os.Exit(0)
		}
		var m fakeMsg
		if err := json.Unmarshal(body, &m); err != nil {
			os.Exit(2)
		}
		s.handle(&m)
		s.out.Flush()
	}
}

func (s *fakeServer) write(v any) {
	_ = lsptest.WriteMessage(s.out, v)
}

func (s *fakeServer) reply(id json.RawMessage, result any) {
	s.write(map[string]any{"jsonrpc": "2.0", "id": id, "result": result})
}

func (s *fakeServer) replyErr(id json.RawMessage, code int, msg string) {
	s.write(map[string]any{"jsonrpc": "2.0", "id": id, "error": map[string]any{"code": code, "message": msg}})
}

func (s *fakeServer) notify(method string, params any) {
	s.write(map[string]any{"jsonrpc": "2.0", "method": method, "params": params})
}

func (s *fakeServer) request(method string, params any) {
	s.nextID++
	id := "srv" + strconv.Itoa(s.nextID)
	s.awaiting[`"`+id+`"`] = len(s.awaiting)
	s.write(map[string]any{"jsonrpc": "2.0", "id": id, "method": method, "params": params})
}

func (s *fakeServer) handle(m *fakeMsg) {
	if m.Method == "" {
		s.onReply(m)
		return
	}
	s.methods = append(s.methods, m.Method)
	if m.ID != nil {
		s.byID[string(m.ID)] = m.Method
	}
	var p map[string]any
	_ = json.Unmarshal(m.Params, &p)
	switch m.Method {
	case "initialize":
		if caps, ok := p["capabilities"].(map[string]any); ok {
			if ws, ok := caps["workspace"].(map[string]any); ok {
				s.watchCaps = ws["didChangeWatchedFiles"]
			}
		}
		if os.Getenv(fakeCrashInitEnv) != "" {
			os.Exit(4)
		}
		if dir := os.Getenv(fakeInitGateEnv); dir != "" {
			_ = os.WriteFile(filepath.Join(dir, "got-initialize"), nil, 0o644)
			for {
				if _, err := os.Stat(filepath.Join(dir, "go")); err == nil {
					break
				}
				time.Sleep(2 * time.Millisecond)
			}
		}
		if ms, _ := strconv.Atoi(os.Getenv(fakeInitDelayEnv)); ms > 0 {
			time.Sleep(time.Duration(ms) * time.Millisecond)
		}
		if os.Getenv(fakeBadInitEnv) != "" {
			s.reply(m.ID, map[string]any{"capabilities": "not an object"})
			break
		}
		caps := map[string]any{"textDocumentSync": 2, "completionProvider": map[string]any{}}
		if raw := os.Getenv(fakeCapsEnv); raw != "" {
			caps = map[string]any{}
			_ = json.Unmarshal([]byte(raw), &caps)
		}
		s.reply(m.ID, map[string]any{"capabilities": caps, "serverInfo": map[string]any{"name": "fake"}})
	case "initialized", "textDocument/didSave", "textDocument/didClose":
	case "shutdown":
		if os.Getenv(fakeNoShutdown) == "" {
			s.reply(m.ID, nil)
		}
	case "exit":
		s.out.Flush()
		os.Exit(0)
	case "$/cancelRequest":
		id, _ := json.Marshal(p["id"])
		meth := s.byID[string(id)]
		s.cancelled = append(s.cancelled, meth)
		// Real servers answer a cancelled request with RequestCancelled:
		// the client must drop that late reply.
		s.replyErr(id, -32800, "cancelled")
	case "textDocument/didOpen":
		td := p["textDocument"].(map[string]any)
		s.docs[td["uri"].(string)] = &fakeDoc{Text: td["text"].(string), Version: int(td["version"].(float64))}
	case "textDocument/didChange":
		s.changes++
		td := p["textDocument"].(map[string]any)
		d := s.docs[td["uri"].(string)]
		d.Version = int(td["version"].(float64))
		for _, ch := range p["contentChanges"].([]any) {
			d.Text = applyFakeChange(d.Text, ch.(map[string]any))
		}
	case "textDocument/references":
		if p["bad"] == true {
			s.reply(m.ID, "not an array of locations")
			return
		}
		locs := make([]any, 2000)
		for i := range locs {
			locs[i] = map[string]any{"uri": fmt.Sprintf("file:///src/f%d.go", i%40), "range": fakeRange(i, 4, 9)}
		}
		s.reply(m.ID, locs)
	case "textDocument/completion":
		n := 6000
		if v, ok := p["n"].(float64); ok {
			n = int(v)
		}
		if v, ok := p["delayMs"].(float64); ok {
			time.Sleep(time.Duration(v) * time.Millisecond)
		}
		s.out.Write(completionFrame(m.ID, n))
	case "textDocument/hover":
		s.reply(m.ID, map[string]any{"contents": map[string]any{"kind": "markdown", "value": "fake hover"}})
	case "textDocument/semanticTokens/full/delta", "textDocument/semanticTokens/full":
		if strings.Contains(fmt.Sprint(p["textDocument"]), propDocPrefix) {
			s.semanticProp(m, p)
			return
		}
		if m.Method == "textDocument/semanticTokens/full" {
			s.semanticFull(m, p)
			return
		}
		// Against r1 (the small example): the second token's type 1
		// becomes 9, as an edit of one integer; against anything else an
		// edit that does not fit.
		if p["previousResultId"] == "r1" {
			s.reply(m.ID, map[string]any{"resultId": "r2", "edits": []any{map[string]any{"start": 8, "deleteCount": 1, "data": []int{9}}}})
			return
		}
		s.reply(m.ID, map[string]any{"resultId": "rX", "edits": []any{map[string]any{"start": 100, "deleteCount": 1}}})
	case "textDocument/diagnostic":
		// A report per document version: resultId "r<version>", unchanged
		// when asked with the current one, else one diagnostic naming the
		// version, and a related document (the path with ".rel") with one.
		u := p["textDocument"].(map[string]any)["uri"].(string)
		prev, _ := p["previousResultId"].(string)
		s.pullPrev = append(s.pullPrev, prev)
		d := s.docs[u]
		if d == nil {
			s.replyErr(m.ID, -32602, "not open: "+u)
			return
		}
		id := fmt.Sprintf("r%d", d.Version)
		if prev == id {
			s.reply(m.ID, map[string]any{"kind": "unchanged", "resultId": id})
			return
		}
		s.reply(m.ID, map[string]any{"kind": "full", "resultId": id,
			"items": []any{map[string]any{"range": fakeRange(0, 0, 1), "message": "version " + strconv.Itoa(d.Version), "severity": 1}},
			"relatedDocuments": map[string]any{u + ".rel": map[string]any{"kind": "full", "resultId": "rel" + id,
				"items": []any{map[string]any{"range": fakeRange(1, 0, 1), "message": "related", "severity": 2}}}}})
	case "workspace/diagnostic":
		prev := map[string]string{}
		var ids []string
		for _, r := range p["previousResultIds"].([]any) {
			r := r.(map[string]any)
			prev[r["uri"].(string)] = r["value"].(string)
			ids = append(ids, r["value"].(string))
		}
		s.pullPrev = append(s.pullPrev, "ws:"+strings.Join(ids, ","))
		items := []any{}
		for u, d := range s.docs {
			id := fmt.Sprintf("r%d", d.Version)
			if prev[u] == id {
				items = append(items, map[string]any{"uri": u, "kind": "unchanged", "resultId": id})
				continue
			}
			items = append(items, map[string]any{"uri": u, "kind": "full", "resultId": id, "version": d.Version,
				"items": []any{map[string]any{"range": fakeRange(0, 0, 1), "message": "workspace " + strconv.Itoa(d.Version)}}})
		}
		s.reply(m.ID, map[string]any{"items": items})
	case "workspace/didChangeWatchedFiles":
		if chs, ok := p["changes"].([]any); ok {
			s.watched = append(s.watched, map[string]any{"n": len(chs), "changes": chs})
		}
	case "fake/watched":
		s.reply(m.ID, map[string]any{"announced": s.watchCaps, "notifications": s.watched})
	case "fake/invalidUTF8":
		// Hand-made so the invalid byte and the duplicate key survive.
		body := fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"result":{"contents":{"kind":"plaintext","kind":"markdown","value":"bad `+"\xff"+` byte"}}}`, m.ID)
		fmt.Fprintf(s.out, "Content-Length: %d\r\n\r\n%s", len(body), body)
		log := `{"jsonrpc":"2.0","method":"window/logMessage","params":{"type":3,"message":"log ` + "\xfe" + `"}}`
		fmt.Fprintf(s.out, "Content-Length: %d\r\n\r\n%s", len(log), log)
	case "fake/never":
	case "fake/crash":
		s.out.Flush()
		os.Exit(3)
	case "fake/error":
		s.replyErr(m.ID, int(p["code"].(float64)), "fake failure")
	case "fake/log":
		s.reply(m.ID, map[string]any{"methods": s.methods, "cancelled": s.cancelled, "changes": s.changes, "pullPrev": s.pullPrev})
	case "fake/docs":
		s.reply(m.ID, s.docs)
	case "fake/malformed":
		s.out.WriteString("Content-Length: abc\r\n\r\n")
		s.out.WriteString("Content-Length: 9\r\n\r\n{not json")
		s.reply(json.RawMessage("999999"), "for nobody")
		s.reply(m.ID, "ok")
	case "fake/diagnostics":
		n := int(p["n"].(float64))
		uri := p["uri"].(string)
		for i := 0; i < n; i++ {
			diags := []any{map[string]any{"range": fakeRange(i, 0, 1), "message": fmt.Sprintf("publication %d", i)}}
			if i == n-1 {
				diags = []any{
					map[string]any{"range": fakeRange(1, 0, 1), "message": "final a", "severity": 1},
					map[string]any{"range": fakeRange(2, 0, 1), "message": "final b", "severity": 2},
				}
			}
			s.notify("textDocument/publishDiagnostics", map[string]any{"uri": uri, "diagnostics": diags})
		}
		s.reply(m.ID, n)
	case "fake/bigDiagnostics":
		n := int(p["n"].(float64))
		diags := make([]any, n)
		for i := range diags {
			diags[i] = map[string]any{"range": fakeRange(i, 0, 1), "message": fmt.Sprintf("diag %d", i), "severity": 1 + i%4}
		}
		s.notify("textDocument/publishDiagnostics", map[string]any{"uri": p["uri"], "diagnostics": diags})
		s.reply(m.ID, n)
	case "fake/flood":
		n := int(p["n"].(float64))
		for i := 0; i < n; i++ {
			s.notify("window/logMessage", map[string]any{"type": 4, "message": fmt.Sprintf("log %d", i)})
		}
		s.reply(m.ID, n)
	case "fake/big":
		// A reply of n bytes, its id after the result as gopls writes it,
		// or before it (idFirst) as vscode-jsonrpc does.
		n := int(p["bytes"].(float64))
		pad := strings.Repeat("x", n)
		var body string
		if p["idFirst"] == true {
			body = fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"result":"%s"}`, m.ID, pad)
		} else {
			body = fmt.Sprintf(`{"jsonrpc":"2.0","result":"%s","id":%s}`, pad, m.ID)
		}
		fmt.Fprintf(s.out, "Content-Length: %d\r\n\r\n%s", len(body), body)
	case "fake/bigNotify":
		s.notify("window/logMessage", map[string]any{"type": 3, "message": strings.Repeat("x", int(p["bytes"].(float64)))})
		s.reply(m.ID, "after")
	case "fake/bigRequest":
		// The client's answer to an oversized request of the server's is
		// the answer to this one.
		s.awaiting = map[string]int{}
		s.replies = make([]json.RawMessage, 1)
		s.origID = m.ID
		s.request("workspace/applyEdit", map[string]any{"label": strings.Repeat("x", int(p["bytes"].(float64)))})
	case "fake/bigNoID":
		// Not JSON: what it answers cannot be told.
		n := int(p["bytes"].(float64))
		fmt.Fprintf(s.out, "Content-Length: %d\r\n\r\n%s", n, strings.Repeat("x", n))
	case "fake/brokenLength":
		s.out.WriteString("Content-Length: 2147483648\r\n\r\n{\"jsonrpc\":\"2.0\"")
	case "fake/stopReading":
		// Answers, then never reads its input again.
		s.reply(m.ID, "stopped")
		s.out.Flush()
		time.Sleep(time.Hour)
	case "fake/diagnosticsMany":
		n := int(p["n"].(float64))
		for i := range n {
			s.notify("textDocument/publishDiagnostics", map[string]any{"uri": fmt.Sprintf("file:///many/f%d.go", i),
				"diagnostics": []any{map[string]any{"range": fakeRange(0, 0, 1), "message": "m"}}})
		}
		s.reply(m.ID, n)
	case "fake/floodBytes":
		// Log messages of size bytes each until total bytes are written,
		// each frame built once: the flood costs the server little.
		total, size := int(p["bytes"].(float64)), int(p["size"].(float64))
		body := fmt.Sprintf(`{"jsonrpc":"2.0","method":"window/logMessage","params":{"type":4,"message":"%s"}}`, strings.Repeat("y", size))
		frame := fmt.Appendf(nil, "Content-Length: %d\r\n\r\n%s", len(body), body)
		for sent := 0; sent < total; sent += len(frame) {
			s.out.Write(frame)
		}
		s.reply(m.ID, total)
	case "fake/progress":
		// With a workDoneToken the progress belongs to this request, which
		// is answered by fake/progressEnd; without one the server starts
		// its own (tok-1) and answers at once.
		tok, own := p["workDoneToken"], true
		if tok == nil {
			tok, own = "tok-1", false
		}
		s.notify("$/progress", map[string]any{"token": tok, "value": map[string]any{"kind": "begin", "title": "Indexing"}})
		s.notify("$/progress", map[string]any{"token": tok, "value": map[string]any{"kind": "report", "message": "3/4", "percentage": 75}})
		if own {
			s.heldID = m.ID
			return
		}
		s.notify("window/showMessage", map[string]any{"type": 2, "message": "shown"})
		s.notify("window/logMessage", map[string]any{"type": 3, "message": "logged"})
		s.reply(m.ID, nil)
	case "fake/progressFlood":
		for i := range int(p["n"].(float64)) {
			s.notify("$/progress", map[string]any{"token": i, "value": map[string]any{"kind": "begin", "title": "never ends"}})
		}
		s.reply(m.ID, nil)
	case "fake/partialResult":
		s.notify("$/progress", map[string]any{"token": "partial-1", "value": map[string]any{"items": []any{map[string]any{"label": "a"}}}})
		s.reply(m.ID, nil)
	case "fake/progressEnd":
		s.notify("$/progress", map[string]any{"token": p["token"], "value": map[string]any{"kind": "end"}})
		if s.heldID != nil {
			s.reply(s.heldID, "done")
			s.heldID = nil
		}
		s.reply(m.ID, nil)
	case "fake/serverRequest":
		// One request from the server, {method, params}: answered with
		// the client's reply once it comes.
		s.awaiting = map[string]int{}
		s.replies = make([]json.RawMessage, 1)
		s.origID = m.ID
		method, _ := p["method"].(string)
		s.request(method, p["params"])
	case "fake/serverRequests":
		s.awaiting = map[string]int{}
		s.replies = make([]json.RawMessage, 5)
		s.origID = m.ID
		s.request("workspace/configuration", map[string]any{"items": []any{map[string]any{"section": "gopls"}, map[string]any{}}})
		s.request("client/registerCapability", map[string]any{"registrations": []any{}})
		s.request("window/workDoneProgress/create", map[string]any{"token": "t"})
		s.request("workspace/applyEdit", map[string]any{"edit": map[string]any{"changes": map[string]any{
			"file:///x.go": []any{map[string]any{"range": fakeRange(0, 0, 3), "newText": "new"}}}}})
		s.request("fake/unknownToClients", map[string]any{})
	default:
		if m.ID != nil {
			s.replyErr(m.ID, -32601, "unknown method "+m.Method)
		}
	}
}

// semanticFull answers textDocument/semanticTokens/full: the example of
// the specification, an odd array, or 14,000 tokens.
func (s *fakeServer) semanticFull(m *fakeMsg, p map[string]any) {
	if strings.HasSuffix(fmt.Sprint(p["textDocument"]), "small.c]") {
		s.reply(m.ID, map[string]any{"resultId": "r1", "data": []int{2, 5, 3, 0, 3, 0, 5, 4, 1, 0, 3, 2, 7, 2, 0}})
		return
	}
	if p["small"] == true {
		// The example of the LSP specification.
		s.reply(m.ID, map[string]any{"resultId": "r1", "data": []int{2, 5, 3, 0, 3, 0, 5, 4, 1, 0, 3, 2, 7, 2, 0}})
		return
	}
	if p["odd"] == true {
		s.reply(m.ID, map[string]any{"data": []int{1, 2, 3}})
		return
	}
	data := make([]int, 0, 70000)
	for i := range 14000 {
		data = append(data, 1, 4, 3, i%7, i%2)
	}
	s.reply(m.ID, map[string]any{"data": data})
}

func (s *fakeServer) onReply(m *fakeMsg) {
	i, ok := s.awaiting[string(m.ID)]
	if !ok {
		return
	}
	delete(s.awaiting, string(m.ID))
	b, _ := json.Marshal(m)
	s.replies[i] = b
	if len(s.awaiting) == 0 {
		s.reply(s.origID, s.replies)
	}
}

func fakeRange(line, from, to int) map[string]any {
	return map[string]any{
		"start": map[string]any{"line": line, "character": from},
		"end":   map[string]any{"line": line, "character": to},
	}
}

// applyFakeChange applies an incremental change to ASCII text.
func applyFakeChange(text string, ch map[string]any) string {
	rg, ok := ch["range"].(map[string]any)
	if !ok {
		return ch["text"].(string)
	}
	off := func(pos map[string]any) int {
		line, col := int(pos["line"].(float64)), int(pos["character"].(float64))
		o := 0
		for ; line > 0; line-- {
			o += strings.IndexByte(text[o:], '\n') + 1
		}
		return o + col
	}
	a, b := off(rg["start"].(map[string]any)), off(rg["end"].(map[string]any))
	return text[:a] + ch["text"].(string) + text[b:]
}

// completionFrame is a framed reply holding completionListJSON(n).
func completionFrame(id json.RawMessage, n int) []byte {
	body := fmt.Appendf(nil, `{"jsonrpc":"2.0","id":%s,"result":%s}`, id, completionListJSON(n))
	return fmt.Appendf(nil, "Content-Length: %d\r\n\r\n%s", len(body), body)
}
