// Package editor is the interactive pmacs-go demo editor: a terminal editor
// (tcell) whose commands are Lua (gopher-lua) and whose expensive work (grep,
// parsing, the filesystem) runs as runtime jobs, so the screen never waits.
//
// # Topology
//
//	terminal ──events──► ChannelEvents goroutine ──chan──┐
//	worker replies ──────────────── rt.Ready() ──────────┤
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
// not land as mark assists in the loop's frames.
//
// A prompt belongs to the buffer shown when it opened: showing another
// buffer or closing that one ends it (on_cancel hears why), so a key is
// never taken by a prompt the shown view did not open.
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
