// Package editor is the interactive pmacs-go demo editor: a terminal editor
// (tcell) whose commands are Lua (gopher-lua) and whose expensive work (grep,
// parsing, the filesystem) runs as runtime jobs, so the screen never waits.
//
// # Topology
//
//	terminal ──events──► ChannelEvents goroutine ──chan──┐
//	worker, LSP and MCP replies ──── rt.Ready() ─────────┤
//	file reads and atomic saves (helper goroutines) ─────┤  select
//	frame timer ─────────────────────────────────────────┘    │
//	                                                         ▼
//	main goroutine: key → prompt / buffer keymap / global keymap / built-in
//	                mouse, bracketed paste → built-in (cursor, selection, text)
//	                frame → luabind.Frame (Tick, batches, resume tasks)
//	                        → resource ops, failed tasks, "frame" hooks
//	                settle → "change" / "view" / queued events → Lua hooks
//	                draw   → repaint the rows and lines that changed, Show
//
// A key press is handled and drawn at once; a frame runs when worker
// replies are waiting, tasks or jobs are in flight, or the shown buffer
// redraws every frame (*workers*), and at most once per frame target, so a
// flood of replies costs one wake-up per frame. Lua never blocks the loop:
// a command that needs a job's result runs as a task (pmacs.async.run) and
// the frame driver resumes it when the job settles.
//
// # Concurrency contract
//
// The Editor, its buffers, the Lua state, the luabind.Binding and the
// runtime.Runtime all belong to the goroutine running the loop. Helper
// goroutines (the terminal's event pump, file reads, saves) share nothing
// with it: they hand their results back as a func on a channel that the
// loop runs. Run returns only after every helper has finished, so a save in
// flight when the user quits completes (atomically) first.
//
// While it runs, Run gives the Go scheduler one processor more than there
// are cores (unless GOMAXPROCS is set), so a key wakes the loop at once even
// when search workers keep every core busy, and runs the collector a quarter
// as often (unless GOGC is set), so that a streaming search's garbage does
// not land as mark assists in the loop's frames; while a large file is
// open, the pace allows a fixed growth of the heap instead (see Large
// files). When the loop is about to wait with no frame wanted and the heap
// has used a quarter of its runway, a collection starts on a goroutine of
// its own (internal/idlegc), so the next burst of frames starts with the
// whole runway.
//
// A prompt belongs to the buffer shown when it opened: showing another
// buffer or closing that one ends it (on_cancel hears why), so a key is
// never taken by a prompt the shown view did not open.
//
// # Large files
//
// A buffer holds its file as one string, and its rows are found in it
// (rows.go): a file costs its size once plus 4 bytes every 16 rows, where
// a 16-byte string header per row cost more than the text of a Go file.
// Rows are kept in blocks of about 1,024; a block becomes strings only
// once edited. The read is sized from the file's stat and allocates
// nothing else; reading with io.ReadAll and converting the bytes to a
// string left about three times the file in garbage, which the relaxed
// collector kept resident (4.4x the file in all). A file over 128 KiB
// shows its first 64 KiB of rows, a row saying the rows between are being
// read, and its last 64 KiB of rows as soon as they are read; once drawn,
// the rest is read and split on the helper goroutine. The buffer is
// loading meanwhile (keys do not edit it, the status line says
// [loading], and ? for the number of a row of the end). Files up to
// 2 GiB open. Highlight spans take room for the rows they
// colour only, not an entry per row of the buffer (115 MB for 5 million
// rows, moved by every line break typed).
//
// Up to 250,000 rows and 4 MiB, init.lua parses a buffer whole and
// reparses it incrementally on each change. Above, it parses only the rows
// around the window (from the nearest row above it that starts with a
// letter, to 20 rows below it) on each change and scroll, and the message
// line says so; if those rows hold over 1 MiB (a minified file), they get
// no colours, and the message line says that. Why, measured by TestBigGoFileParseFigures
// (PMACS_EDITOR_BENCH=1) on Go files of small functions (13 bytes a row),
// on two shared cores:
//
//	size   rows       full parse  peak resident  a screen's highlights  get_text  window's parse
//	1 MB      78,087     0.23 s       47 MB          7.9 ms               0.6 ms    1.3 ms
//	3 MB     232,612     0.74 s      140 MB          7.4 ms               2.7 ms    1.5 ms
//	16 MB  1,231,442      9.4 s      611 MB           89 ms                16 ms    1.4 ms
//	60 MB  4,595,628       43 s      2.8 GB          520 ms               195 ms    2.0 ms
//
// A tree costs about 46 times its text, so no full tree keeps a large file
// within four times its size; the first colours would wait for the whole
// parse; and every keystroke would copy the whole text on the main loop
// (get_text) to hand it to the reparse. The window's parse costs the same
// at any size. Its colours can be wrong where it starts inside a construct
// that began above it (a raw string, a block comment).
//
// While a buffer over 16 MiB is open, the collector's pace allows 24 MiB
// of growth over the live heap rather than relaxGC's four times it
// (gcfit.go): with the 60 MB file's live heap of 1.3 times the file, four
// times more would let searches take the resident size to five times the
// file. A collection of that heap is cheap: the text is one string the
// collector does not scan.
//
// The 60 MB file (TestBigGoFileFigures, PMACS_EDITOR_BENCH=1: the loop's
// own collector and scheduler settings, range of three opens, beside the
// code before these changes and os.ReadFile of the file, measured one
// after the other on two loaded cores):
//
//	                                issue 14: before  after        issue 31     os.ReadFile
//	first frame                     237-255 ms    27-46 ms     35-74 ms     35-36 ms
//	whole text loaded               237-255 ms    161-207 ms   166-372 ms
//	first keystroke once loaded     0.2-0.4 ms    0.3-0.5 ms   0.3-0.5 ms
//	first colours                   never         156-284 ms   165-372 ms
//	peak resident, open and typing  4.36-4.38x    2.32-2.37x   1.31-1.38x   0.96-1.00x
//	after three searches            12.2-12.7x    3.55-3.67x   1.57-1.74x
//	keystroke p99                   0.7-2.8 ms    1.4-3.0 ms   0.7-3.8 ms
//
// (Issue 31: the rows found in the text, a search that allocates nothing
// per row, the smaller headroom; load average 3.5 to 6.) A keystroke now
// includes the window's reparse, 0.1 to 0.3 ms of the main goroutine's
// time, and a parse job on a worker; the rest of its p99 is the loaded
// machine's scheduling.
//
// A 1 GB log (TestHugeFileFigures, best of three opens, load average 4 to
// 8): first frame 38-91 ms (a 64 KiB file's 35-62 ms in the same run),
// C-End to the frame showing the last row 0.4-13 ms while it loads and
// 0.6-1.1 ms once loaded, whole text loaded 1.6-2.8 s (os.ReadFile of the
// file 0.7-2.6 s), peak resident 1.02x the file.
//
// # Workspace trust
//
// The workspace (the root) is untrusted until the user trusts it
// (docs/security.md; the decisions are the trust package's). The binding's
// ProgramPolicy (trust.go) refuses any program that lies inside the
// untrusted workspace, at every process start the Lua API offers, and runs
// the file it resolved; pmacs.trust gives init.lua the decisions and the
// server lookup; the status line says "restricted". The workspace's status
// is read on the main goroutine when the editor starts and before every
// decision that depends on it: a stat of each .bin entry and, once the
// workspace has been trusted, a hash of those whose stat changed (the
// first, 80 to 190 ms for a 42 MB gopls, once a run).
//
// # Lua
//
// The embedded init.lua (or the --init file) builds the user-facing
// commands on pmacs.workers.* (docs/lua-api.md) and pmacs.editor.*
// (docs/editor-api.md). An error in a key binding, a hook, a prompt
// callback or a task shows on the message line and, with its traceback, in
// *messages*; the editor keeps running. A few keys (movement, editing,
// C-s, C-z, C-y, C-q) work without any Lua, so a broken init file still
// leaves a usable editor.
package editor
