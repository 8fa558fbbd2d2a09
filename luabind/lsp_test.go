package luabind

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	lua "github.com/yuin/gopher-lua"
	"go.lsp.dev/protocol"

	"github.com/pmacs-go/pmacs-go/internal/testenv"
	"github.com/pmacs-go/pmacs-go/lsp/lsptest"
)

// fakeServerEnv makes the test binary a language server (see init): the
// tests start it as pmacs.lsp.start{cmd = {os.Args[0]}}.
const fakeServerEnv = "PMACS_LUABIND_FAKE_LSP"

func init() {
	if os.Getenv(fakeServerEnv) == "1" {
		fakeServer(os.Stdin, os.Stdout)
		os.Exit(0)
	}
}

// fakeServer answers just enough LSP for the binding's tests:
//   - test/echo answers its params;
//   - test/error answers ContentModified;
//   - test/never is never answered;
//   - test/cancels answers the ids $/cancelRequest named so far;
//   - test/crash exits with code 3 at once;
//   - test/progress begins and reports progress of the server's own, or
//     ends it with params.end;
//   - textDocument/references answers params.position.line locations,
//     textDocument/completion as many completion items, after
//     params.delayMs on a timer of its own when given, cancelled or not;
//   - textDocument/semanticTokens/full answers 70,000 integers, /range
//     a token at the start of each row of the range;
//   - test/bigDiagnostics publishes params.n diagnostics for params.uri;
//   - didOpen and didChange publish one diagnostic whose message is the
//     document text the server holds, applying incremental edits;
//   - test/apply sends workspace/applyEdit with its params as the edit,
//     and test/applied answers (and forgets) the client's last answer;
//   - test/big answers a string of params.bytes bytes;
//   - test/watched answers every didChangeWatchedFiles change so far;
//   - test/flood sends params.n window/logMessage notifications.
func fakeServer(in io.Reader, out io.Writer) {
	r := bufio.NewReader(in)
	var mu sync.Mutex // delayed replies write from timers
	send := func(v any) {
		mu.Lock()
		defer mu.Unlock()
		_ = lsptest.WriteMessage(out, v)
	}
	var cancels []any
	var watched []any // every didChangeWatchedFiles change, in order
	var applied json.RawMessage
	applies := 0
	docs := map[string]string{}
	publish := func(uri string) {
		send(map[string]any{"jsonrpc": "2.0", "method": "textDocument/publishDiagnostics", "params": map[string]any{
			"uri": uri,
			"diagnostics": []any{map[string]any{
				"range":    map[string]any{"start": map[string]any{"line": 0, "character": 1}, "end": map[string]any{"line": 0, "character": 2}},
				"severity": 1, "source": "fake", "message": docs[uri],
			}},
		}})
	}
	for {
		body, err := lsptest.ReadMessage(r)
		if err != nil {
			return
		}
		var msg struct {
			ID     any             `json:"id"`
			Method string          `json:"method"`
			Params json.RawMessage `json:"params"`
			Result json.RawMessage `json:"result"`
		}
		if json.Unmarshal(body, &msg) != nil {
			continue
		}
		reply := func(result any) {
			send(map[string]any{"jsonrpc": "2.0", "id": msg.ID, "result": result})
		}
		var p map[string]any
		_ = json.Unmarshal(msg.Params, &p)
		switch msg.Method {
		case "initialize":
			reply(map[string]any{"capabilities": map[string]any{"textDocumentSync": 2,
				"hoverProvider": true, "inlayHintProvider": map[string]any{"resolveProvider": true}}})
		case "shutdown":
			reply(nil)
		case "exit":
			return
		case "test/echo":
			reply(p)
		case "test/register":
			// Registers what params name and answers at once; the
			// client's reply to the registration is not waited for.
			send(map[string]any{"jsonrpc": "2.0", "id": "reg1", "method": "client/registerCapability", "params": p})
			reply(true)
		case "workspace/didChangeWatchedFiles":
			if chs, ok := p["changes"].([]any); ok {
				watched = append(watched, chs...)
			}
		case "test/watched":
			reply(watched)
		case "test/raw":
			reply(string(msg.Params))
		case "test/big":
			reply(strings.Repeat("x", int(p["bytes"].(float64))))
		case "test/error":
			send(map[string]any{"jsonrpc": "2.0", "id": msg.ID, "error": map[string]any{"code": -32801, "message": "content modified"}})
		case "test/never":
		case "test/cancels":
			mu.Lock()
			ids := slices.Clone(cancels)
			mu.Unlock()
			reply(ids)
		case "test/crash":
			os.Exit(3)
		case "test/flood":
			for i := range int(p["n"].(float64)) {
				send(map[string]any{"jsonrpc": "2.0", "method": "window/logMessage", "params": map[string]any{"type": 4, "message": fmt.Sprintf("log %d", i)}})
			}
		case "test/apply":
			applies++
			send(map[string]any{"jsonrpc": "2.0", "id": fmt.Sprintf("apply-%d", applies), "method": "workspace/applyEdit",
				"params": map[string]any{"label": "test", "edit": p}})
		case "test/applied":
			reply(applied)
			applied = nil
		case "":
			applied = msg.Result // the client's answer to test/apply
		case "test/progress":
			// Progress of the server's own, begun and reported, or ended.
			value := map[string]any{"kind": "end"}
			if p["end"] != true {
				send(map[string]any{"jsonrpc": "2.0", "method": "$/progress", "params": map[string]any{
					"token": "index", "value": map[string]any{"kind": "begin", "title": "Indexing"}}})
				value = map[string]any{"kind": "report", "message": "1/2", "percentage": 50}
			}
			send(map[string]any{"jsonrpc": "2.0", "method": "$/progress", "params": map[string]any{"token": "index", "value": value}})
			reply(nil)
		case "$/cancelRequest":
			mu.Lock()
			cancels = append(cancels, p["id"])
			mu.Unlock()
		case "textDocument/references":
			count := int(p["position"].(map[string]any)["line"].(float64))
			uri := p["textDocument"].(map[string]any)["uri"]
			locs := make([]any, count)
			for i := range locs {
				pos := map[string]any{"line": i, "character": 0}
				locs[i] = map[string]any{"uri": uri, "range": map[string]any{"start": pos, "end": pos}}
			}
			reply(locs)
		case "textDocument/completion":
			count := int(p["position"].(map[string]any)["line"].(float64))
			doc := strings.Repeat("Documentation text for the symbol with details. ", 8)
			items := make([]any, count)
			for i := range items {
				items[i] = map[string]any{"label": fmt.Sprintf("Symbol%05d", i), "kind": 1 + i%25, "sortText": fmt.Sprintf("%08d", i),
					"detail": "func(ctx context.Context) error", "documentation": map[string]any{"kind": "markdown", "value": doc}}
			}
			result := map[string]any{"isIncomplete": false, "items": items}
			if d, ok := p["delayMs"].(float64); ok {
				// A slow server that ignores $/cancelRequest, the worst
				// case: every reply comes, superseded or not.
				id := msg.ID
				time.AfterFunc(time.Duration(d)*time.Millisecond, func() {
					send(map[string]any{"jsonrpc": "2.0", "id": id, "result": result})
				})
				break
			}
			reply(result)
		case "textDocument/semanticTokens/range":
			// One token at the start of each row of the range.
			rg := p["range"].(map[string]any)
			from := int(rg["start"].(map[string]any)["line"].(float64))
			to := int(rg["end"].(map[string]any)["line"].(float64))
			data := []int{}
			for l := from; l < to; l++ {
				d := 1
				if l == from {
					d = from
				}
				data = append(data, d, 0, 3, l%7, 0)
			}
			reply(map[string]any{"data": data})
		case "textDocument/semanticTokens/full":
			data := make([]int, 0, 70000)
			for i := range 14000 {
				data = append(data, 1, 4, 3, i%7, i%2)
			}
			reply(map[string]any{"data": data})
		case "test/bigDiagnostics":
			n := int(p["n"].(float64))
			diags := make([]any, n)
			for i := range diags {
				diags[i] = map[string]any{
					"range":   map[string]any{"start": map[string]any{"line": i, "character": 0}, "end": map[string]any{"line": i, "character": 1}},
					"message": fmt.Sprintf("diagnostic %d", i), "severity": 1 + i%4, "source": "fake", "code": "E" + strconv.Itoa(i%10),
				}
			}
			send(map[string]any{"jsonrpc": "2.0", "method": "textDocument/publishDiagnostics", "params": map[string]any{"uri": p["uri"], "diagnostics": diags}})
			reply(n)
		case "textDocument/didOpen":
			td := p["textDocument"].(map[string]any)
			uri := td["uri"].(string)
			docs[uri] = td["text"].(string)
			publish(uri)
		case "textDocument/didChange":
			uri := p["textDocument"].(map[string]any)["uri"].(string)
			for _, c := range p["contentChanges"].([]any) {
				ch := c.(map[string]any)
				rg := ch["range"].(map[string]any)
				// Single-line documents are enough here: offsets are
				// characters on line 0.
				start := int(rg["start"].(map[string]any)["character"].(float64))
				end := int(rg["end"].(map[string]any)["character"].(float64))
				d := docs[uri]
				docs[uri] = d[:start] + ch["text"].(string) + d[end:]
			}
			publish(uri)
		}
	}
}

// lspHarness is a harness whose Lua state knows the fake server's command
// as FAKE and a temp directory as DIR.
func lspHarness(t *testing.T) *harness {
	t.Helper()
	t.Setenv(fakeServerEnv, "1")
	h := newHarness(t, false)
	exe, err := os.Executable()
	require.NoError(t, err)
	L := h.b.L()
	L.SetGlobal("FAKE", lua.LString(exe))
	L.SetGlobal("DIR", lua.LString(t.TempDir()))
	return h
}

func requireOK(t *testing.T, h *harness, task *Task) {
	t.Helper()
	require.True(t, task.Done(), "task still running\nstderr:\n%s", h.stderr.String())
	require.NoError(t, task.Err(), h.stderr.String())
	require.Equal(t, []lua.LValue{lua.LString("ok")}, task.Results())
}

func TestLSPRequestAwaitedFromLua(t *testing.T) {
	h := lspHarness(t)
	task := h.run(t, `
		local c = assert(pmacs.lsp.start{cmd = {FAKE}, root = DIR})
		assert(tostring(c):find("^pmacs%.lsp%.client%("), tostring(c))
		local v, err = c:request("test/echo", {a = 1, list = {"x", "y"}, nested = {b = true}}):await()
		assert(err == nil, tostring(err))
		assert(v.a == 1 and v.list[2] == "y" and v.nested.b == true, "echo came back wrong")
		assert(c:status().state == "running", c:status().state)
		c:stop()
		return "ok"`)
	requireOK(t, h, task)
}

// A reply over the client's 64 MiB limit awaits as nil, a message naming
// its size and the limit, and "FrameTooLarge"; the client goes on. (Issue
// 25 point 7: "a bigger one fails that request with a clear error".)
func TestLSPReplyTooLargeAwaitsAsTriple(t *testing.T) {
	h := lspHarness(t)
	task := h.run(t, `
		local c = assert(pmacs.lsp.start{cmd = {FAKE}, root = DIR})
		local v, msg, code = c:request("test/big", {bytes = 65 * 1048576}):await()
		assert(v == nil, "value on error")
		assert(code == "FrameTooLarge", tostring(code))
		assert(msg:find("message too large", 1, true) and msg:find("over the limit of 67108864", 1, true), msg)
		assert(c:request("test/echo", {a = 1}):await().a == 1)
		c:stop()
		return "ok"`)
	requireOK(t, h, task)
}

func TestLSPServerErrorAwaitsAsTriple(t *testing.T) {
	h := lspHarness(t)
	task := h.run(t, `
		local c = assert(pmacs.lsp.start{cmd = {FAKE}, root = DIR})
		local v, msg, code = c:request("test/error"):await()
		assert(v == nil, "value on error")
		assert(msg == "content modified", tostring(msg))
		assert(code == "ContentModified", tostring(code))
		c:stop()
		return "ok"`)
	requireOK(t, h, task)
}

func TestLSPCancelSendsCancelRequest(t *testing.T) {
	h := lspHarness(t)
	task := h.run(t, `
		local c = assert(pmacs.lsp.start{cmd = {FAKE}, root = DIR})
		-- The server must have the request before a cancel is sent for it:
		-- a reply to a later request proves it read the earlier one.
		local never = c:request("test/never")
		assert(c:request("test/echo", {}):await())
		never:cancel()
		local v, err = never:await()
		assert(v == nil and err == "cancelled", tostring(err))
		local sup = c:request("test/never", nil, {key = "k"})
		assert(c:request("test/echo", {}):await())
		c:request("test/never", nil, {key = "k"})
		local sv, serr = sup:await()
		assert(sv == nil and serr == "cancelled", "superseded: " .. tostring(serr))
		local ids = assert(c:request("test/cancels"):await())
		assert(#ids == 2, "cancels seen: " .. #ids)
		local tv, terr, tcode = c:request("test/never", nil, {timeout_ms = 20}):await()
		assert(tv == nil and tcode == "Timeout", tostring(terr) .. " " .. tostring(tcode))
		c:stop()
		return "ok"`)
	requireOK(t, h, task)
}

func TestLSPCrashFailsPendingAwaits(t *testing.T) {
	h := lspHarness(t)
	task := h.run(t, `
		local c = assert(pmacs.lsp.start{cmd = {FAKE}, root = DIR})
		local a = c:request("test/never")
		local b = c:request("test/never")
		assert(c:request("test/echo", {}):await())
		c:notify("test/crash")
		local v, err, code = a:await()
		assert(v == nil and code == "ServerExited", tostring(err))
		assert(err:find("exited", 1, true) and err:find("exit code 3", 1, true), err)
		local v2, err2 = b:await()
		assert(v2 == nil and err2:find("exited", 1, true), tostring(err2))
		c:stop()
		return "ok"`)
	requireOK(t, h, task)
}

func TestLSPDiagnosticsHookAndIncrementalChange(t *testing.T) {
	h := lspHarness(t)
	path := filepath.Join(t.TempDir(), "a.go")
	require.NoError(t, os.WriteFile(path, []byte("hello"), 0o644))
	h.b.L().SetGlobal("PATH", lua.LString(path))
	task := h.run(t, `
		local c = assert(pmacs.lsp.start{cmd = {FAKE}, root = DIR, filetypes = {"go"}})
		local seen = {}
		local function wait_for(text)
			for _ = 1, 2000 do
				if seen[#seen] == text then return end
				pmacs.workers.sleep(1):await()
			end
			error("no diagnostics " .. text .. "; last: " .. tostring(seen[#seen]))
		end
		c:on_diagnostics(function(client, path)
			assert(path == PATH, path)
			local ds = client:diagnostics(path)
			seen[#seen + 1] = ds[1].message
		end)
		assert(c:open(PATH))
		wait_for("hello")
		assert(c:version(PATH) == 1, c:version(PATH))
		assert(c:change(PATH, {{line = 0, col = 1, end_line = 0, end_col = 3, text = "EE"}}))
		assert(c:version(PATH) == 2, "edits not yet sent count as the version they will go out under")
		wait_for("hEElo")
		assert(c:version(PATH) == 2, c:version(PATH))
		assert(c:version(DIR .. "/not-open.go") == 0)
		local d = c:diagnostics(PATH)[1]
		assert(d.line == 0 and d.col == 1 and d.end_col == 2 and d.severity == 1 and d.source == "fake")
		assert(c:save(PATH))
		assert(c:close(PATH))
		local ok, err = c:close(PATH)
		assert(ok == nil and err:find("not open", 1, true), tostring(err))
		c:stop()
		return "ok"`)
	requireOK(t, h, task)
}

func TestLSPArgumentErrors(t *testing.T) {
	h := lspHarness(t)
	task := h.run(t, `
		local function fails(want, f, ...)
			local ok, err = pcall(f, ...)
			assert(not ok and tostring(err):find(want, 1, true), tostring(err))
		end
		fails("cmd must be a non-empty list", pmacs.lsp.start, {})
		fails("unknown option", pmacs.lsp.start, {cmd = {FAKE}, bogus = 1})
		local v, err = pmacs.lsp.start{cmd = {DIR .. "/missing-server"}}
		assert(v == nil and type(err) == "string", "missing program")
		local c = assert(pmacs.lsp.start{cmd = {FAKE}, root = DIR})
		fails("edit 1", c.change, c, DIR .. "/x", {{line = -1}})
		fails("language client", c.request, {}, "x")
		local ok, oerr = c:open(DIR .. "/missing.go")
		assert(ok == nil and oerr:find("no such file", 1, true), tostring(oerr))
		c:stop()
		return "ok"`)
	requireOK(t, h, task)
}

// TestLSPBatchesBigResult iterates 6,000 references a batch a frame and
// checks every item arrives, in order, with no batch over LSPBatchSize
// (batches are smaller when a step runs out of its time budget).
func TestLSPBatchesBigResult(t *testing.T) {
	h := lspHarness(t)
	task := h.run(t, `
		local c = assert(pmacs.lsp.start{cmd = {FAKE}, root = DIR})
		local h = c:request("textDocument/references", {
			textDocument = {uri = "file://" .. DIR .. "/a.go"},
			position = {line = 6000, character = 0},
			context = {includeDeclaration = true},
		})
		local n, batches = 0, 0
		for batch in h:batches() do
			batches = batches + 1
			assert(#batch <= 200, "batch of " .. #batch)
			for _, loc in ipairs(batch) do
				assert(loc.range.start.line == n, "item " .. n .. " out of order")
				n = n + 1
			end
		end
		assert(n == 6000, "items: " .. n)
		assert(batches >= 30, "batches: " .. batches)
		local sum = assert(h:await())
		assert(sum.len == 6000, "summary len")
		-- A small result, awaited whole, arrives as Lua tables at once.
		local few = assert(c:request("textDocument/references", {
			textDocument = {uri = "file://" .. DIR .. "/a.go"},
			position = {line = 3, character = 0},
			context = {includeDeclaration = true},
		}):await())
		assert(#few == 3 and few[3].range.start.line == 2)
		c:stop()
		return "ok"`)
	requireOK(t, h, task)
}

// TestLSPGopls runs a definition request against gopls from the project's
// .bin directory, skipping when it is absent.
func TestLSPGopls(t *testing.T) {
	gopls := testenv.Peer(t, testenv.Gopls)
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "go.mod"), []byte("module example.com/m\n\ngo 1.22\n"), 0o644))
	src := "package m\n\nfunc Target() int { return 1 }\n\nvar X = Target() + undefinedName\n"
	path := filepath.Join(dir, "m.go")
	require.NoError(t, os.WriteFile(path, []byte(src), 0o644))
	h := newHarness(t, false)
	L := h.b.L()
	L.SetGlobal("GOPLS", lua.LString(gopls))
	L.SetGlobal("DIR", lua.LString(dir))
	L.SetGlobal("PATH", lua.LString(path))
	fn, err := h.b.LoadString(`
		local c = assert(pmacs.lsp.start{cmd = {GOPLS}, root = DIR, filetypes = {"go"}})
		assert(c:open(PATH))
		local uri = "file://" .. PATH
		local defs = assert(c:request("textDocument/definition", {
			textDocument = {uri = uri}, position = {line = 4, character = 9},
		}, {timeout_ms = 60000}):await())
		local d = defs[1]
		assert(d and d.range.start.line == 2, "definition")
		for _ = 1, 60000 do
			local ds = c:diagnostics(PATH)
			if #ds > 0 then
				assert(ds[1].message:find("undefinedName", 1, true), ds[1].message)
				c:stop()
				return "ok"
			end
			pmacs.workers.sleep(1):await()
		end
		error("no diagnostics from gopls")`, "gopls.lua")
	require.NoError(t, err)
	task := h.b.Spawn(fn)
	h.drive(t, 120*time.Second)
	requireOK(t, h, task)
}

func completionList6000JSON() []byte {
	var sb strings.Builder
	sb.WriteString(`{"isIncomplete":false,"items":[`)
	doc := strings.Repeat("Documentation text for the symbol with details. ", 8)
	for i := range 6000 {
		if i > 0 {
			sb.WriteByte(',')
		}
		fmt.Fprintf(&sb, `{"label":"Symbol%05d","kind":%d,"detail":"func(a%d int) (result%d, error)","documentation":{"kind":"markdown","value":"%s"},"sortText":"%08d","textEdit":{"range":{"start":{"line":%d,"character":4},"end":{"line":%d,"character":9}},"newText":"Symbol%05d()"},"data":{"id":%d}}`,
			i, 1+i%25, i, i, doc, i, i, i, i, i)
	}
	sb.WriteString(`]}`)
	return []byte(sb.String())
}

// BenchmarkLSPToLua measures turning a 6,000-item completion reply into
// Lua tables: shaped on the client's reader goroutine, as the binding
// does, against the baseline of converting the decoded protocol value on
// the main goroutine (through its JSON), as the binding did before.
func BenchmarkLSPToLua(b *testing.B) {
	raw := completionList6000JSON()
	var l protocol.CompletionList
	require.NoError(b, protocol.Unmarshal(raw, &l))
	require.Len(b, l.Items, 6000)
	L := lua.NewState(lua.Options{SkipOpenLibs: true})
	defer L.Close()
	b.Run("reader-shape-6000", func(b *testing.B) {
		for b.Loop() {
			v, err := shapeLSPResult(protocol.MethodTextDocumentCompletion, raw, &l)
			if err != nil || v.(*lspShaped).n != 6000 {
				b.Fatal(err)
			}
		}
	})
	b.Run("baseline-main-convert-6000", func(b *testing.B) {
		for b.Loop() {
			if goToLua(L, &l) == lua.LNil {
				b.Fatal("nil")
			}
		}
	})
}

// lspSweepLua calls every client method with valid and invalid arguments,
// and awaits every handle a call returns, against the fake server. Each
// entry is a list of argument lists (self is added).
const lspSweepLua = `
local c, PATH = ...
local function args(...) return {n = select("#", ...), ...} end
local uri = "file://" .. PATH
return {
	request = {args("test/echo", {a = 1}), args("test/error"), args("test/echo", nil, {key = "k", timeout_ms = 5000}),
		args("textDocument/references", {textDocument = {uri = uri}, position = {line = 3, character = 0}}), args(5)},
	notify = {args("test/note", {x = 1}), args()},
	open = {args(PATH), args(PATH), args(PATH .. ".missing")},
	change = {args(PATH, {{line = 0, col = 0, end_line = 0, end_col = 0, text = "a"}}), args(PATH .. ".x", {}), args(PATH, "x")},
	save = {args(PATH), args(PATH .. ".x")},
	version = {args(PATH), args(PATH .. ".x"), args()},
	diagnostics = {args(PATH), args(PATH .. ".x")},
	on_diagnostics = {args(function() end), args(nil), args(3)},
	on_apply_edit = {args(function() return true end), args(nil), args(3)},
	status = {args()},
	messages = {args()},
	supports = {args("textDocument/hover"), args("custom/x"), args(5), args()},
	capabilities = {args()},
	registrations = {args()},
	root = {args()},
	watchers = {args()},
	on_watchers = {args(function() end), args(nil), args(3)},
	file_changes = {args({{path = PATH, op = "write"}, {path = PATH, type = 3}}), args({}), args("x"), args({{op = "x"}})},
	semantic_tokens = {args(PATH), args(PATH, {key = "sem", timeout_ms = 1000}), args(5, {bogus = 1})},
	pull_diagnostics = {args(PATH, {timeout_ms = 1000}), args(PATH, {key = "pull", timeout_ms = 1000}), args(5), args(PATH, {bogus = 1})},
	pull_workspace_diagnostics = {args({timeout_ms = 1000}), args({key = "ws", timeout_ms = 1000}), args("x")},
	diagnostic_refresh = {args()},
	encoding = {args()},
	units = {args("aé😀b", 7), args("x", 1.5), args(5, 0), args()},
	byte_col = {args("aé😀b", 4), args("x", -1), args()},
	close = {args(PATH), args(PATH)},
	stop = {args(), args()},
}`

// TestEveryLSPClientMethodReturnsLuaValues is the value sweep for client
// methods (the binding-wide sweep only reaches pmacs.lsp.start's refusals,
// since a client needs a server): every method has an entry, and every
// value a call or an await returns, at any depth, is a proper Lua value.
func TestEveryLSPClientMethodReturnsLuaValues(t *testing.T) {
	h := lspHarness(t)
	path := filepath.Join(t.TempDir(), "a.go")
	require.NoError(t, os.WriteFile(path, []byte("hello"), 0o644))
	L := h.b.L()
	var bad []string
	L.SetGlobal("record", L.NewFunction(func(L *lua.LState) int {
		where := L.CheckString(1)
		for i := 2; i <= L.GetTop(); i++ {
			bad = append(bad, badLuaValues(L.Get(i), fmt.Sprintf("%s result %d", where, i-1), map[*lua.LTable]bool{})...)
		}
		return 0
	}))
	mk, err := h.b.LoadString(lspSweepLua, "lsp_sweep_calls.lua")
	require.NoError(t, err)
	L.SetGlobal("MK", mk)
	L.SetGlobal("PATH", lua.LString(path))
	task := h.run(t, `
		local c = assert(pmacs.lsp.start{cmd = {FAKE}, root = DIR})
		local calls = MK(c, PATH)
		local names = {}
		for name in pairs(calls) do names[#names + 1] = name end
		table.sort(names)
		-- stop last: the other calls need a running server.
		for i, name in ipairs(names) do
			if name == "stop" then table.remove(names, i) break end
		end
		names[#names + 1] = "stop"
		local n = 0
		for _, name in ipairs(names) do
			for _, a in ipairs(calls[name]) do
				local r = {pcall(c[name], c, unpack(a, 1, a.n))}
				record(name, unpack(r, 2))
				n = n + 1
				if r[1] and type(r[2]) == "userdata" and tostring(r[2]):find("^pmacs%.handle") then
					record(name .. " await", r[2]:await())
					for batch in r[2]:batches() do record(name .. " batch", batch) end
				end
			end
		end
		record("tostring", tostring(c))
		return n > 0 and "ok" or "no calls"`)
	requireOK(t, h, task)
	require.Empty(t, bad)

	h.b.lsp.mt.RawGetString("__index").(*lua.LTable).ForEach(func(k, _ lua.LValue) {
		require.Contains(t, lspSweepLua, "\t"+lua.LVAsString(k)+" = ", "client:%s has no sweep entry", lua.LVAsString(k))
	})
}
