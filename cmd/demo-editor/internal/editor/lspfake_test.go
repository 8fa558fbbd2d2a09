package editor

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/pmacs-go/pmacs-go/lsp/lsptest"
)

// fakeLSPEnv names the log file of the scripted language server: when it
// is set, the test binary is that server (see TestMain).
const fakeLSPEnv = "PMACS_EDITOR_FAKE_LSP_LOG"

// fakeLSPWatchEnv makes the scripted server register a watcher of every
// file once initialized, and log each change it is told of.
const fakeLSPWatchEnv = "PMACS_EDITOR_FAKE_LSP_WATCH"

// fakeLSPExtraRefEnv names a path the scripted server adds to every
// references answer (a hostile server pointing outside the workspace).
const fakeLSPExtraRefEnv = "PMACS_EDITOR_FAKE_LSP_EXTRA_REF"

// fakeLSPUTF8Env makes the scripted server choose UTF-8 columns, as
// clangd does: its definition answer then names the column in bytes.
const fakeLSPUTF8Env = "PMACS_EDITOR_FAKE_LSP_UTF8"

// fakeAnswerAt is the completion column at which the scripted server
// answers every completion request it holds, newest first: the answers to
// superseded requests then arrive after the answer to the newest, as they
// would from a slow server.
const fakeAnswerAt = 18

// runFakeLSPIfAsked runs the scripted server and exits when this process
// was started as one.
func runFakeLSPIfAsked() {
	logPath := os.Getenv(fakeLSPEnv)
	if logPath == "" {
		return
	}
	logf, err := os.OpenFile(logPath, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	s := &fakeLSP{out: bufio.NewWriter(os.Stdout), log: logf}
	s.serve(bufio.NewReader(os.Stdin))
	os.Exit(0)
}

type fakeLSP struct {
	mu   sync.Mutex
	out  *bufio.Writer
	log  *os.File
	held []fakeRequest
	// versions is each open document's version, as didOpen and
	// didChange gave it (read and written by serve's goroutine only).
	versions map[string]int
}

// fakeDocParams is the part of a document notification's params the
// scripted server reads.
type fakeDocParams struct {
	TextDocument struct {
		URI     string
		Version int
	} `json:"textDocument"`
}

type fakeRequest struct {
	id   json.RawMessage
	char int
}

type fakeMessage struct {
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
	Params json.RawMessage `json:"params"`
	Result json.RawMessage `json:"result"`
}

func (s *fakeLSP) logf(format string, args ...any) {
	fmt.Fprintf(s.log, format+"\n", args...)
}

func (s *fakeLSP) send(v any) {
	s.mu.Lock()
	defer s.mu.Unlock()
	_ = lsptest.WriteMessage(s.out, v)
	s.out.Flush()
}

func (s *fakeLSP) reply(id json.RawMessage, result any) {
	s.send(map[string]any{"jsonrpc": "2.0", "id": id, "result": result})
}

func (s *fakeLSP) serve(in *bufio.Reader) {
	for {
		body, err := lsptest.ReadMessage(in)
		if err != nil {
			return
		}
		var m fakeMessage
		if json.Unmarshal(body, &m) != nil {
			continue
		}
		switch m.Method {
		case "initialize":
			var p struct {
				RootURI string `json:"rootUri"`
			}
			_ = json.Unmarshal(m.Params, &p)
			s.mu.Lock()
			s.logf("root %s", p.RootURI)
			s.mu.Unlock()
			caps := map[string]any{
				"textDocumentSync":       2,
				"completionProvider":     map[string]any{},
				"hoverProvider":          true,
				"referencesProvider":     true,
				"definitionProvider":     true,
				"documentSymbolProvider": true,
				"codeActionProvider":     map[string]any{"codeActionKinds": []string{"quickfix"}, "resolveProvider": true},
			}
			if os.Getenv(fakeLSPUTF8Env) != "" {
				caps["positionEncoding"] = "utf-8"
			}
			s.reply(m.ID, map[string]any{"capabilities": caps})
		case "textDocument/codeAction":
			// One quickfix listed without its edit, as a server that
			// resolves actions lists them.
			s.reply(m.ID, []any{map[string]any{"title": "Fake fix", "kind": "quickfix", "data": map[string]any{"token": 7}}})
		case "codeAction/resolve":
			// The edit the listed action lacked: a comment atop the file
			// (the data names the file's place only through the token).
			var a struct {
				Title string         `json:"title"`
				Data  map[string]any `json:"data"`
			}
			_ = json.Unmarshal(m.Params, &a)
			s.mu.Lock()
			s.logf("resolve %s %v", strings.ReplaceAll(a.Title, " ", "_"), a.Data["token"])
			s.mu.Unlock()
			uri := ""
			for u := range s.versions {
				uri = u
			}
			at := map[string]any{"line": 0, "character": 0}
			s.reply(m.ID, map[string]any{"title": a.Title, "kind": "quickfix", "edit": map[string]any{"changes": map[string]any{
				uri: []any{map[string]any{"range": map[string]any{"start": at, "end": at}, "newText": "// fixed\n"}}}}})
		case "textDocument/definition":
			// The x of row 2 "é😀x", in the units the server chose: after
			// 6 bytes, or 3 UTF-16 units (é one, the emoji two).
			var p fakeDocParams
			_ = json.Unmarshal(m.Params, &p)
			char := 3
			if os.Getenv(fakeLSPUTF8Env) != "" {
				char = 6
			}
			at := map[string]any{"line": 2, "character": char}
			s.reply(m.ID, map[string]any{"uri": p.TextDocument.URI, "range": map[string]any{"start": at, "end": at}})
		case "initialized":
			// With fakeLSPWatchEnv set, every file is watched, as a
			// server that wants to hear of all of them would ask.
			if os.Getenv(fakeLSPWatchEnv) != "" {
				s.send(map[string]any{"jsonrpc": "2.0", "id": "watch-1", "method": "client/registerCapability", "params": map[string]any{
					"registrations": []any{map[string]any{"id": "all", "method": "workspace/didChangeWatchedFiles",
						"registerOptions": map[string]any{"watchers": []any{map[string]any{"globPattern": "**/*"}}}}},
				}})
			}
		case "workspace/didChangeWatchedFiles":
			var p struct {
				Changes []struct {
					URI  string `json:"uri"`
					Type int    `json:"type"`
				} `json:"changes"`
			}
			_ = json.Unmarshal(m.Params, &p)
			s.mu.Lock()
			for _, c := range p.Changes {
				s.logf("watched %s %d", c.URI, c.Type)
			}
			s.mu.Unlock()
		case "textDocument/documentSymbol":
			// The flat form, SymbolInformation[], out of order: a
			// struct, its field (inside its range) and a function.
			var p fakeDocParams
			_ = json.Unmarshal(m.Params, &p)
			sym := func(name string, kind, line, endLine int) map[string]any {
				return map[string]any{"name": name, "kind": kind, "location": map[string]any{"uri": p.TextDocument.URI,
					"range": map[string]any{"start": map[string]any{"line": line, "character": 0},
						"end": map[string]any{"line": endLine, "character": 1}}}}
			}
			s.reply(m.ID, []any{sym("Run", 12, 4, 4), sym("Field", 8, 1, 1), sym("Thing", 23, 0, 2)})
		case "textDocument/completion":
			var p struct {
				Position struct{ Character int } `json:"position"`
			}
			_ = json.Unmarshal(m.Params, &p)
			s.mu.Lock()
			s.logf("completion %s %d", m.ID, p.Position.Character)
			s.held = append(s.held, fakeRequest{id: m.ID, char: p.Position.Character})
			s.mu.Unlock()
			if p.Position.Character == fakeAnswerAt {
				s.answerHeld()
			}
		case "textDocument/hover":
			s.reply(m.ID, map[string]any{"contents": map[string]any{"kind": "markdown",
				"value": "```go\nfunc Alpha(n int) string\n```\n\nAlpha **names** the `n`th [letter](https://example.com/doc) \\_ok\\_."}})
		case "textDocument/references":
			// Two places: row 2 of the document asked about, and row 1 of
			// other.go beside it, which no buffer holds.
			var p fakeDocParams
			_ = json.Unmarshal(m.Params, &p)
			other := p.TextDocument.URI[:strings.LastIndexByte(p.TextDocument.URI, '/')+1] + "other.go"
			at := func(uri string, line, char int) map[string]any {
				pos := map[string]any{"line": line, "character": char}
				return map[string]any{"uri": uri, "range": map[string]any{"start": pos, "end": pos}}
			}
			refs := []any{at(p.TextDocument.URI, 2, 4), at(other, 1, 1)}
			if extra := os.Getenv(fakeLSPExtraRefEnv); extra != "" {
				refs = append(refs, at("file://"+extra, 0, 0))
			}
			s.reply(m.ID, refs)
		case "$/cancelRequest":
			var p struct {
				ID json.RawMessage `json:"id"`
			}
			_ = json.Unmarshal(m.Params, &p)
			s.mu.Lock()
			s.logf("cancel %s", p.ID)
			s.mu.Unlock()
		case "textDocument/didChange":
			var p fakeDocParams
			_ = json.Unmarshal(m.Params, &p)
			s.versions[p.TextDocument.URI] = p.TextDocument.Version
		case "textDocument/didOpen":
			// One warning on row 2, never published again: what the
			// gutter shows after edits is the editor's own shifting.
			var p fakeDocParams
			_ = json.Unmarshal(m.Params, &p)
			if s.versions == nil {
				s.versions = map[string]int{}
			}
			s.versions[p.TextDocument.URI] = p.TextDocument.Version
			at := map[string]any{"line": 2, "character": 4}
			s.send(map[string]any{"jsonrpc": "2.0", "method": "textDocument/publishDiagnostics", "params": map[string]any{
				"uri": p.TextDocument.URI,
				"diagnostics": []any{map[string]any{"range": map[string]any{"start": at, "end": at},
					"severity": 2, "message": "fake warning\nsecond line"}},
			}})
		case "textDocument/didSave":
			// A save asks the editor to apply an edit of the saved file
			// and of other.go beside it, as a code action would.
			var p struct {
				TextDocument struct{ URI string } `json:"textDocument"`
			}
			_ = json.Unmarshal(m.Params, &p)
			other := strings.TrimSuffix(p.TextDocument.URI, filepath.Base(p.TextDocument.URI)) + "other.go"
			at := func(line, char int) map[string]any { return map[string]any{"line": line, "character": char} }
			if strings.HasPrefix(filepath.Base(p.TextDocument.URI), "atomic") {
				// A good edit of the saved file and one of other.go past
				// its end: applied file by file, the first would land.
				s.send(map[string]any{"jsonrpc": "2.0", "id": "apply-a", "method": "workspace/applyEdit", "params": map[string]any{
					"label": "fake half-bad fix", "edit": map[string]any{"changes": map[string]any{
						p.TextDocument.URI: []any{map[string]any{"range": map[string]any{"start": at(0, 0), "end": at(0, 0)}, "newText": "// a\n"}},
						other:              []any{map[string]any{"range": map[string]any{"start": at(99, 0), "end": at(99, 0)}, "newText": "x"}},
					}},
				}})
				break
			}
			if strings.HasPrefix(filepath.Base(p.TextDocument.URI), "remote") {
				// An edit of other.go on another host: no local file.
				s.send(map[string]any{"jsonrpc": "2.0", "id": "apply-r", "method": "workspace/applyEdit", "params": map[string]any{
					"label": "fake remote edit", "edit": map[string]any{"changes": map[string]any{
						"file://server" + strings.TrimPrefix(other, "file://"): []any{map[string]any{"range": map[string]any{"start": at(0, 0), "end": at(0, 0)}, "newText": "x"}},
					}},
				}})
				break
			}
			if name := filepath.Base(p.TextDocument.URI); strings.HasPrefix(name, "create") {
				// A create of new.go and an edit filling it; for
				// "create_exists" a create of other.go, which exists; for
				// "create_missing" an edit of missing.go with no create.
				dirURI := strings.TrimSuffix(p.TextDocument.URI, name)
				target := dirURI + "new.go"
				switch name {
				case "create_exists.go":
					target = other
				case "create_missing.go":
					target = dirURI + "missing.go"
				}
				changes := []any{
					map[string]any{"textDocument": map[string]any{"uri": target, "version": nil},
						"edits": []any{map[string]any{"range": map[string]any{"start": at(0, 0), "end": at(0, 0)}, "newText": "package m\n\nvar created = 1\n"}}},
				}
				if name != "create_missing.go" {
					changes = append([]any{map[string]any{"kind": "create", "uri": target}}, changes...)
				}
				s.send(map[string]any{"jsonrpc": "2.0", "id": "apply-c", "method": "workspace/applyEdit", "params": map[string]any{
					"label": "fake create", "edit": map[string]any{"documentChanges": changes},
				}})
				break
			}
			if name := filepath.Base(p.TextDocument.URI); strings.HasPrefix(name, "fileops") {
				// An edit of other.go, its rename into sub/dir (which does
				// not exist), an edit by its new name and a delete of
				// gone.txt; for "fileops_taken" the rename's target is
				// taken.txt, which exists; for "fileops_bad_second" two
				// edits of other.go, the second out of range; for
				// "fileops_unsaved" only the delete.
				dirURI := strings.TrimSuffix(p.TextDocument.URI, name)
				to := dirURI + "sub/dir/moved.go"
				if name == "fileops_taken.go" {
					to = dirURI + "taken.txt"
				}
				edit := func(uri, text string) map[string]any {
					return map[string]any{"textDocument": map[string]any{"uri": uri, "version": nil},
						"edits": []any{map[string]any{"range": map[string]any{"start": at(0, 0), "end": at(0, 0)}, "newText": text}}}
				}
				changes := []any{
					edit(other, "// before the move\n"),
					map[string]any{"kind": "rename", "oldUri": other, "newUri": to},
					edit(to, "// after the move\n"),
					map[string]any{"kind": "delete", "uri": dirURI + "gone.txt"},
				}
				if name == "fileops_unsaved.go" {
					changes = []any{map[string]any{"kind": "delete", "uri": dirURI + "gone.txt"}}
				}
				if name == "fileops_bad_second.go" {
					// A second edit of other.go past the end the first
					// leaves it.
					changes = []any{edit(other, "// one\n"), map[string]any{"textDocument": map[string]any{"uri": other, "version": nil},
						"edits": []any{map[string]any{"range": map[string]any{"start": at(9, 0), "end": at(9, 0)}, "newText": "x"}}}}
				}
				s.send(map[string]any{"jsonrpc": "2.0", "id": "apply-f", "method": "workspace/applyEdit", "params": map[string]any{
					"label": "fake move", "edit": map[string]any{"documentChanges": changes},
				}})
				break
			}
			if name := filepath.Base(p.TextDocument.URI); strings.HasPrefix(name, "hostile") {
				// A hostile server's edits of the files beside the
				// workspace (see hostileEdits), sent as the reply id
				// "apply-h".
				dirURI := strings.TrimSuffix(p.TextDocument.URI, name)
				s.send(map[string]any{"jsonrpc": "2.0", "id": "apply-h", "method": "workspace/applyEdit", "params": map[string]any{
					"label": "fake hostile edit", "edit": map[string]any{"documentChanges": hostileEdits(name, dirURI)},
				}})
				break
			}
			if name := filepath.Base(p.TextDocument.URI); strings.HasPrefix(name, "versioned") {
				// A documentChanges edit naming a version: the one the
				// server holds, or for "versioned_stale" one before it,
				// as from a server that computed it before an edit.
				v := s.versions[p.TextDocument.URI]
				if strings.HasPrefix(name, "versioned_stale") {
					v--
				}
				s.send(map[string]any{"jsonrpc": "2.0", "id": "apply-v", "method": "workspace/applyEdit", "params": map[string]any{
					"label": "fake versioned fix", "edit": map[string]any{"documentChanges": []any{map[string]any{
						"textDocument": map[string]any{"uri": p.TextDocument.URI, "version": v},
						"edits":        []any{map[string]any{"range": map[string]any{"start": at(0, 0), "end": at(0, 0)}, "newText": "// v\n"}},
					}}},
				}})
				break
			}
			s.send(map[string]any{"jsonrpc": "2.0", "id": "apply-1", "method": "workspace/applyEdit", "params": map[string]any{
				"label": "fake fix", "edit": map[string]any{"changes": map[string]any{
					p.TextDocument.URI: []any{map[string]any{"range": map[string]any{"start": at(0, 0), "end": at(0, 0)}, "newText": "// applied\n"}},
					other:              []any{map[string]any{"range": map[string]any{"start": at(2, 4), "end": at(2, 5)}, "newText": "renamed"}},
				}},
			}})
		case "":
			s.mu.Lock()
			s.logf("reply %s %s", m.ID, m.Result)
			s.mu.Unlock()
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

// hostileEdits is the documentChanges a hostile server sends when the
// file name is saved, dirURI being the workspace's URI (ending in "/"),
// whose directory sits beside "beside/" (see hostileWorkspace).
func hostileEdits(name, dirURI string) []any {
	topURI := strings.TrimSuffix(strings.TrimSuffix(dirURI, "/"), filepath.Base(strings.TrimSuffix(dirURI, "/")))
	beside := topURI + "beside/"
	at := map[string]any{"line": 0, "character": 0}
	edit := func(uri string) map[string]any {
		return map[string]any{"textDocument": map[string]any{"uri": uri, "version": nil},
			"edits": []any{map[string]any{"range": map[string]any{"start": at, "end": at}, "newText": "// pwned\n"}}}
	}
	rename := func(from, to string) map[string]any {
		return map[string]any{"kind": "rename", "oldUri": from, "newUri": to}
	}
	switch strings.TrimSuffix(name, ".go") {
	case "hostile_edit": // a file beside the workspace
		return []any{edit(beside + "victim.go")}
	case "hostile_dotdot": // the same through "..", after a good edit inside
		return []any{edit(dirURI + "other.go"), edit(dirURI + "../beside/victim.go")}
	case "hostile_door": // through a directory link inside that leads out
		return []any{edit(dirURI + "door/victim.go")}
	case "hostile_alias": // through a file link inside that leads out
		return []any{edit(dirURI + "alias.go")}
	case "hostile_move": // rename one file beside and delete another
		return []any{
			map[string]any{"kind": "rename", "oldUri": beside + "a.txt", "newUri": beside + "b.txt"},
			map[string]any{"kind": "delete", "uri": beside + "c.txt"},
		}
	case "hostile_steal": // move a file of the workspace out of it
		return []any{map[string]any{"kind": "rename", "oldUri": dirURI + "other.go", "newUri": beside + "stolen.go"}}
	case "hostile_door_delete": // delete through the directory link
		return []any{map[string]any{"kind": "delete", "uri": dirURI + "door/c.txt"}}
	case "hostile_create": // create a file beside and fill it
		return []any{map[string]any{"kind": "create", "uri": beside + "new.go"}, edit(beside + "new.go")}
	case "hostile_create_door": // create through the directory link
		return []any{map[string]any{"kind": "create", "uri": dirURI + "door/new.go"}, edit(dirURI + "door/new.go")}
	case "hostile_rename_alias": // rename the file link, then edit it by its new name
		return []any{rename(dirURI+"alias.go", dirURI+"b.go"), edit(dirURI + "b.go")}
	case "hostile_rename_door": // rename the directory link, then create in it
		return []any{rename(dirURI+"door", dirURI+"sub"),
			map[string]any{"kind": "create", "uri": dirURI + "sub/new.go"}, edit(dirURI + "sub/new.go")}
	case "hostile_rename_door_edit": // rename the directory link, then edit in it
		return []any{rename(dirURI+"door", dirURI+"sub"), edit(dirURI + "sub/victim.go")}
	case "hostile_rename_door_probe": // the same for a file beside that is missing
		return []any{rename(dirURI+"door", dirURI+"sub"), edit(dirURI + "sub/missing.go")}
	case "hostile_rename_door_delete": // rename the directory link, then delete in it
		return []any{rename(dirURI+"door", dirURI+"sub"), map[string]any{"kind": "delete", "uri": dirURI + "sub/c.txt"}}
	case "hostile_moved_link": // edit through a link inside, then move the link up
		return []any{edit(dirURI + "deep/ln.go"), rename(dirURI+"deep/ln.go", dirURI+"ln.go")}
	case "hostile_dir_inside": // rename a directory, then create and edit in it
		return []any{rename(dirURI+"pkg", dirURI+"moved"),
			map[string]any{"kind": "create", "uri": dirURI + "moved/new.go"}, edit(dirURI + "moved/new.go"),
			edit(dirURI + "moved/p.go")}
	}
	// hostile_inside: what stays inside is still applied: an edit through
	// a link that stays inside, and a rename into a new directory.
	return []any{
		edit(dirURI + "inlink.go"),
		map[string]any{"kind": "rename", "oldUri": dirURI + "a.txt", "newUri": dirURI + "sub/a.txt"},
	}
}

// answerHeld answers every held completion request, the newest first,
// each with items named for the column it was asked at ("c12_alpha").
func (s *fakeLSP) answerHeld() {
	s.mu.Lock()
	held := s.held
	s.held = nil
	s.mu.Unlock()
	for i := len(held) - 1; i >= 0; i-- {
		r := held[i]
		items := []map[string]any{
			{"label": fmt.Sprintf("c%d_alpha", r.char)},
			{"label": fmt.Sprintf("c%d_beta", r.char)},
		}
		s.reply(r.id, map[string]any{"isIncomplete": false, "items": items})
		s.mu.Lock()
		s.logf("answered %s", r.id)
		s.mu.Unlock()
	}
}

// useFakeLSP makes init.lua find this test binary, run as the scripted
// server, when it looks for gopls; it returns the server's log file.
func useFakeLSP(t *testing.T) string {
	t.Helper()
	exe, err := os.Executable()
	require.NoError(t, err)
	dir := t.TempDir()
	logPath := filepath.Join(dir, "fake-lsp.log")
	script := fmt.Sprintf("#!/bin/sh\nexec env %s=%q %q \"$@\"\n", fakeLSPEnv, logPath, exe)
	require.NoError(t, os.WriteFile(filepath.Join(dir, "gopls"), []byte(script), 0o755))
	t.Setenv("PATH", dir+string(os.PathListSeparator)+os.Getenv("PATH"))
	return logPath
}

// fakeLog is the scripted server's log: the ids of the completion
// requests in order and their columns, the ids it was asked to cancel, and
// how many it answered.
type fakeLog struct {
	requests []string
	cols     []int
	cancels  map[string]bool
	answered int
}

func readFakeLog(t *testing.T, path string) fakeLog {
	t.Helper()
	data, err := os.ReadFile(path)
	if os.IsNotExist(err) {
		return fakeLog{cancels: map[string]bool{}}
	}
	require.NoError(t, err)
	l := fakeLog{cancels: map[string]bool{}}
	for _, line := range strings.Split(string(data), "\n") {
		f := strings.Fields(line)
		switch {
		case len(f) == 3 && f[0] == "completion":
			l.requests = append(l.requests, f[1])
			col, _ := strconv.Atoi(f[2])
			l.cols = append(l.cols, col)
		case len(f) == 2 && f[0] == "cancel":
			l.cancels[f[1]] = true
		case len(f) == 2 && f[0] == "answered":
			l.answered++
		}
	}
	return l
}
