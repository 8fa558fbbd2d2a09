package editor

import (
	"context"
	"embed"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	goruntime "runtime"
	"runtime/debug"
	"strings"
	"sync"
	"time"

	"github.com/gdamore/tcell/v2"
	lua "github.com/yuin/gopher-lua"

	"github.com/pmacs-go/pmacs-go/internal/idlegc"
	"github.com/pmacs-go/pmacs-go/journal"
	"github.com/pmacs-go/pmacs-go/luabind"
	"github.com/pmacs-go/pmacs-go/runtime"
)

//go:embed init.lua
var embeddedInit string

// luaFiles holds the editor's own Lua modules, lua/NAME.lua, which any
// init file can require (luabind.Options.Modules): under lua/pmacs/, so
// that no user module shadows one by accident.
//
//go:embed lua
var luaFiles embed.FS

// modules is luaFiles seen from lua/ (fs.Sub fails only on an invalid
// path, which "lua" is not).
var modules, _ = fs.Sub(luaFiles, "lua")

// Modules returns the editor's embedded Lua modules, module a.b as a/b.lua,
// for luabind.Options.Modules.
func Modules() fs.FS { return modules }

// EmbeddedInit returns the init.lua built into the editor, for a user who
// wants a copy to start an --init file from.
func EmbeddedInit() string { return embeddedInit }

// Options configures Run.
type Options struct {
	// Path is the file or directory to open first; "" means ".".
	Path string
	// InitFile is a Lua file run instead of the embedded init.lua. A
	// missing or unreadable one stops Run at once with an error matching
	// ErrInitFile.
	InitFile string
	// Clean starts without the user's own init file (ConfigFile).
	Clean bool
	// Stderr receives the whole text of an init file's errors (the message
	// line shows only their first line, cut to the screen): a syntax error
	// before the terminal is taken over, an error while it runs after the
	// terminal is given back. nil discards them.
	Stderr io.Writer
	// Screen is where the editor draws and reads keys; nil means the
	// terminal. Run initialises it and finalises it before returning.
	Screen tcell.Screen

	// runtime overrides the job runtime's options (tests shrink the
	// stream credit).
	runtime runtime.Options
	// grepBatch caps how many matches a grep view takes a frame (tests
	// make a search outlast a few keystrokes); 0 takes all there are.
	grepBatch int
}

// frameBudget caps the time of one frame's Lua work: the runtime's tick and
// resuming tasks; the rest wait for the next frame. The whole frame's
// main-goroutine work is to stay within 4 ms, and taking a grep batch into
// its view and drawing the screen take up to 1.5 and 2 ms of it at p99
// while a search streams, so the tick and the tasks get 2 ms. A smaller
// budget does not delay a streaming search: its pace is one batch a frame.
// (3 ms: frame CPU p99 7.0-7.5 ms; 2 ms: 5.2-5.4 ms, time to "done" for
// func over GOROOT the same 1.21 s.)
const frameBudget = 2 * time.Millisecond

// streamCredit is the editor's per-stream high-water mark, and so the pace
// of a live grep: about one credit's worth of matches a frame. The tick's
// decoding stops at the frame budget, but the frame also spends on what it
// took (the view's intake, the draw, the hooks). Measured with "func" over
// GOROOT/src (146,000 matches) in the keystroke table, against the goals of
// frame CPU p99 4 ms while a search streams and keystroke p99 16 ms, with
// the view taking its matches as undecoded blocks (5 runs each):
//
//	credit  to "done"    frame CPU p50 / p99     frame CPU p99     keystroke p99
//	                     selection moving        typing the query  typing the query
//	2048    1.20-1.21 s  0.8-1.0 / 1.4-1.9 ms    2.4-2.9 ms        7.8-11.1 ms
//	8192    0.31-0.35 s  1.1-1.4 / 1.8-2.8 ms    2.5-2.7 ms        7.0-10.7 ms
//	16384   0.21-0.23 s  1.3-1.8 / 3.6-16.9 ms * 2.1-3.2 ms        7.1-11.0 ms
//
// (* about 37 frames a run: the p99 is the longest.) 8192 keeps every
// figure within the goals with room; 16384 came within 0.5 ms of the frame
// goal in most runs and passed it once. (When every match was decoded as
// it arrived, 2048 was the most that kept within the goals.)
const streamCredit = 8192

// ErrInit is returned (wrapped) when the editor cannot start: no terminal,
// no runtime, or no Lua state.
var ErrInit = errors.New("editor: cannot start")

// ErrInitFile is returned (wrapped, with ErrInit and the cause) when the
// --init file cannot be read: a missing file is a mistake on the command
// line, not a broken init file to carry on without.
var ErrInitFile = fmt.Errorf("%w: cannot read --init file", ErrInit)

// Run runs the editor until the user quits (then it returns nil) or ctx
// ends (then ctx.Err()). It fails at once, with an error matching ErrInit,
// only when the terminal, the runtime or Lua cannot start. Lua errors,
// including a broken init file, never end it: they show in the message line
// and in *messages*. A save in flight when the user quits completes before
// Run returns.
func Run(ctx context.Context, opts Options) error {
	defer reserveLoopProc()()
	defer relaxGC()()
	e, err := newEditor(opts)
	if err != nil {
		return err
	}
	e.start()
	err = e.loop(ctx)
	e.close()
	// The terminal is the user's again: the init errors it could show
	// only cut short go out whole.
	if opts.Stderr != nil {
		for _, msg := range e.initErrs {
			fmt.Fprintf(opts.Stderr, "demo-editor: %s\n", msg)
		}
	}
	return err
}

// reserveLoopProc gives the Go scheduler one processor more than there are
// cores while the editor runs, unless GOMAXPROCS was set by the user; it
// returns the func that puts the old value back. A search keeps every core
// busy with CPU-bound workers, and with as many Ps as cores the loop's
// goroutine, woken by a key, would queue behind them until the scheduler
// preempts one (up to 10 ms). With a spare P it runs at once, on a thread
// the kernel schedules as soon as it wakes. On two cores it roughly halved
// the p99 keystroke latency while a search restarts on every key.
// relaxGC makes the collector run a quarter as often while the editor
// runs, unless GOGC was set by the user; it returns the func that puts the
// old value back. A streaming search allocates on the main goroutine for
// every match it decodes and hands to Lua, and a collection cycle charges
// part of its marking to that goroutine as assist work: in the keystroke
// benchmark, the p99 frame time while "func" streams over GOROOT fell from
// 14 ms at GOGC=100 to 8 ms at 400. The editor's live heap is tens of MiB,
// so the extra headroom is cheap.
func relaxGC() func() {
	if os.Getenv("GOGC") != "" {
		return func() {}
	}
	prev := debug.SetGCPercent(400)
	return func() { debug.SetGCPercent(prev) }
}

func reserveLoopProc() func() {
	if os.Getenv("GOMAXPROCS") != "" || goruntime.GOMAXPROCS(0) != goruntime.NumCPU() {
		return func() {}
	}
	prev := goruntime.GOMAXPROCS(goruntime.NumCPU() + 1)
	return func() { goruntime.GOMAXPROCS(prev) }
}

// session is the running editor. Every field belongs to the main goroutine
// (the one in loop); other goroutines reach it only by sending a func on
// calls.
type session struct {
	// commandTasks are the task trees the last command started (C-g
	// cancels them).
	commandTasks []*luabind.Task
	scr          tcell.Screen
	rt           *runtime.Runtime
	lb           *luabind.Binding
	L            *lua.LState
	opts         Options
	root         string // absolute project root: the started path's directory, or set_root's
	// rootFixed says the start event has been delivered: the root no
	// longer changes (setRoot).
	rootFixed bool
	faces     *faces

	bufs     map[int]*buffer
	order    []int // buffer ids in creation order
	nextBuf  int
	cur      *buffer
	prev     *buffer // the buffer shown before cur
	messages *buffer

	prompt *prompt
	paste  *paste // a bracketed paste being received
	mouse  mouseState
	msg    string
	msgErr bool
	help   string

	keys   keymaps
	hooks  hooks
	events []event // raised since the last flush

	// Workspace edits being planned on helper goroutines, by token
	// (ed.plan_workspace_edit).
	plans    map[int]*editPlan
	nextPlan int

	// Drawing state: what is on the screen, so a frame repaints only
	// what changed.
	winAll    bool // repaint the whole window
	shownBuf  *buffer
	shownTop  int
	shownLeft int
	shownCur  pos
	shownSel  [3]pos // the selection drawn: start, end, and {1, 0} if any
	// shownGutter is the gutter's width as last drawn.
	shownGutter int
	// lineNumbers numbers the rows of file buffers (ed.set_line_numbers).
	lineNumbers bool
	shownLines  [4]string // status, help, message, and the cursor line key
	viewSent    map[int][2]int
	// cursorSent is the shown buffer and its cursor as the last "cursor"
	// event reported them.
	cursorSent struct {
		buf int
		at  pos
	}
	// shownSent is the buffer the last "show" event reported.
	shownSent int
	width     int
	height    int
	mustShow  bool

	// The loop.
	calls     chan func() // work handed to the main goroutine
	ioWG      sync.WaitGroup
	stop      chan struct{} // closed when the loop ends: helpers give up
	replies   bool          // rt.Ready fired since the last frame
	lastFrame time.Time
	// lastIntake is when the last intake turn (see intakeGap) ran.
	lastIntake time.Time
	stats      frameStats
	quitting   bool
	quitAsked  time.Time

	// afterShow, when set (tests), is called on the main goroutine after
	// every Show.
	afterShow func()
	// frameProbe, when set (benchmarks), is called before a frame's work
	// (true) and after its draw (false).
	frameProbe func(begin bool)

	tracebackFn *lua.LFunction

	// initFn is the compiled init file (or embedded init.lua); initErr is
	// why it did not compile. initErrs are the init errors raised while it
	// ran, written whole to Options.Stderr when Run ends.
	initFn   *lua.LFunction
	initErr  error
	initErrs []string

	// hitBuf is drawRow's scratch list of a row's search matches.
	hitBuf []textMatch
	// win is the second window of a split screen; rowOff is the screen row
	// drawRow's window starts at.
	win    split
	rowOff int
	// grepViews maps the editor's own running grep jobs to the buffers
	// they fill.
	grepViews map[runtime.JobID]*buffer
	// trust is the workspace's trust (trust.go).
	trust workspaceTrust
	// jdir is where the buffers' crash journals go (journal.go), "" when
	// there is no state directory; journalOff stops journalling the
	// buffers opened from then on (ed.set_journaling); journalWake is when
	// the next journal write falls due (zero for none).
	jdir        string
	jdirErr     error
	journalOff  bool
	journalWake time.Time
	// idleGC collects while the loop waits with no frame wanted, so the
	// next burst's frames start with the collector's whole runway
	// (internal/idlegc).
	idleGC idlegc.Collector
}

// newEditor sets up the screen, the runtime and Lua. Nothing is drawn and
// no Lua runs until start.
func newEditor(opts Options) (*session, error) {
	path := opts.Path
	if path == "" {
		path = "."
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrInit, err)
	}
	root := abs
	// A trailing slash says "a directory": keep it for the start hook,
	// which must not open a missing directory as a file.
	if strings.HasSuffix(path, "/") && !strings.HasSuffix(abs, "/") {
		abs += "/"
	}
	opts.Path = abs
	if st, err := os.Stat(root); err != nil || !st.IsDir() {
		root = filepath.Dir(root)
	}

	if opts.InitFile != "" {
		f, err := os.Open(opts.InitFile)
		if err != nil {
			return nil, fmt.Errorf("%w %s: %w", ErrInitFile, opts.InitFile, unwrapPath(err))
		}
		f.Close()
	}
	ro := opts.runtime
	if ro.StreamCredit == 0 {
		ro.StreamCredit = streamCredit
	}
	rt, err := runtime.New(ro)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrInit, err)
	}
	// Jobs under the project share one actor: its renames run in order
	// and a listing dispatched after a rename sees it.
	if _, err := rt.RegisterRoot(root); err != nil {
		rt.Close()
		return nil, fmt.Errorf("%w: %w", ErrInit, err)
	}
	e := &session{
		rt:       rt,
		opts:     opts,
		root:     root,
		faces:    newFaces(),
		bufs:     map[int]*buffer{},
		nextBuf:  1,
		viewSent: map[int][2]int{},
		calls:    make(chan func(), 64),
		stop:     make(chan struct{}),
		winAll:   true,
	}
	e.keys.init()
	e.openTrust()
	e.jdir, e.jdirErr = journal.Dir()
	e.messages = e.newScratch("*messages*")
	e.cur = e.messages
	out := &messageWriter{e: e}
	lb, err := luabind.New(rt, luabind.Options{Stdout: out, Stderr: out, FrameBudget: frameBudget, OnTick: e.followResources,
		ProgramPolicy: e.programPolicy, Modules: Modules(), ModuleDirs: ModuleDirs()})
	if err != nil {
		rt.Close()
		e.restorePath()
		return nil, fmt.Errorf("%w: %w", ErrInit, err)
	}
	e.lb, e.L = lb, lb.L()
	e.installAPI()
	if opts.InitFile != "" {
		e.initFn, e.initErr = e.lb.LoadFile(opts.InitFile)
	} else {
		e.initFn, e.initErr = e.lb.LoadString(embeddedInit, "init.lua")
	}
	if e.initErr != nil && opts.Stderr != nil {
		// Before the terminal is taken over, so it stays in the scrollback.
		fmt.Fprintf(opts.Stderr, "demo-editor: init: %s\n", strings.TrimRight(e.initErr.Error(), "\n"))
	}
	scr := opts.Screen
	if scr == nil {
		if scr, err = tcell.NewScreen(); err != nil {
			lb.Close()
			rt.Close()
			e.restorePath()
			return nil, fmt.Errorf("%w: %w", ErrInit, err)
		}
	}
	e.scr = scr
	if err := scr.Init(); err != nil {
		lb.Close()
		rt.Close()
		e.restorePath()
		return nil, fmt.Errorf("%w: %w", ErrInit, err)
	}
	// Bracketed paste: a paste arrives as text, not as keys to obey.
	scr.EnablePaste()
	// Clicks, drags and the wheel (the terminal's own selection then
	// needs shift, as in other terminal editors).
	scr.EnableMouse(tcell.MouseButtonEvents | tcell.MouseDragEvents)
	e.width, e.height = scr.Size()
	return e, nil
}

// start runs init.lua and fires the start event with the path to open.
func (e *session) start() {
	if err := e.initErr; err != nil {
		e.reportError(fmt.Sprintf("init: %v", err), "")
	} else {
		// The init file runs as a task, so it may await at top level; a
		// program it starts and leaves running keeps running (SpawnMain).
		t := e.lb.SpawnMain(e.initFn)
		if terr := t.Err(); terr != nil {
			e.lb.TakeFailed() // reported here, with the init context
			e.reportTaskError("init", terr)
			full := terr.Error()
			var te *luabind.TaskError
			if errors.As(terr, &te) && te.Traceback != "" {
				full += "\n" + te.Traceback
			}
			e.initErrs = append(e.initErrs, "init: "+full)
		}
	}
	if len(e.hooks.byName["start"]) == 0 {
		// No init code to open the path (a broken or minimal init file):
		// open a file anyway, so the built-in keys can still edit it.
		if st, err := os.Stat(e.opts.Path); err != nil || !st.IsDir() {
			if b, err := e.openFile(e.opts.Path); err == nil {
				e.show(b)
			}
		}
	}
	e.raise(event{name: "start", path: e.opts.Path})
	e.settle()
	e.rootFixed = true
}

// ioCloseWait bounds how long quitting waits for the file reads and
// writes in flight. A save cut short could leave its file half written, so
// it gets longer than the processes do; it is not a child, and the
// processes end first.
const ioCloseWait = 5 * time.Second

// close ends the session: the language servers, MCP connections and
// programs first (the binding, then the runtime: each server's and
// program's whole tree ends, within about 3 s whatever they do), while the
// file reads and writes in flight finish aside, waited for at most
// ioCloseWait; then the terminal is given back.
func (e *session) close() {
	e.journalFlushAll()
	close(e.stop)
	start := time.Now()
	ioDone := make(chan struct{})
	go func() {
		e.ioWG.Wait()
		close(ioDone)
	}()
	e.lb.Close()
	e.rt.Close()
	e.restorePath()
	select {
	case <-ioDone:
	case <-time.After(max(ioCloseWait-time.Since(start), 0)):
		if e.opts.Stderr != nil {
			fmt.Fprintf(e.opts.Stderr, "demo-editor: a file read or write was still running %v after quit; the editor did not wait for it\n", ioCloseWait)
		}
	}
	e.scr.Fini()
}

// loop is the main loop: it waits on a terminal event, worker replies, a
// helper's result or the frame deadline, and never on a job.
func (e *session) loop(ctx context.Context) error {
	raw := make(chan tcell.Event, 64)
	events := make(chan tcell.Event, 64)
	stopEvents := make(chan struct{})
	go e.scr.ChannelEvents(raw, stopEvents)
	go interruptOnQuitKey(raw, events, e.lb.Interrupt)
	defer func() {
		close(stopEvents)
		for range events { // ChannelEvents closes it when it returns
		}
	}()
	// The select below sees ctx end only between two turns: Lua stuck in
	// a loop (a key binding, a hook, a task) is interrupted until the loop
	// gets there, so a signal ends the editor whatever Lua is doing.
	over := make(chan struct{})
	defer close(over)
	go func() {
		select {
		case <-ctx.Done():
			StopLua(e.lb.Interrupt, over)
		case <-over:
		}
	}()

	timer := time.NewTimer(0)
	defer timer.Stop()
	for !e.quitting {
		keyed := false
		select {
		case ev, ok := <-events:
			if !ok {
				return nil
			}
			keyed = true
			e.handleEvent(ev)
			// A paste or a held key queues many events: take what is
			// already there before paying for a redraw.
			for i := 0; i < 64 && len(events) > 0; i++ {
				e.handleEvent(<-events)
			}
		case <-e.rt.Ready():
			// Worker replies, and the MCP and language clients' (the
			// runtime's pollers): the frame's Tick settles them all.
			e.replies = true
		case fn := <-e.calls:
			fn()
		case <-timer.C:
		case <-ctx.Done():
			return ctx.Err()
		}
		now := time.Now()
		framed := false
		// A key is drawn before the frame that is due, which then runs
		// at once in the next turn: the keystroke does not wait for the
		// frame's work. A frame overdue by two targets (keys arriving
		// without a pause) runs anyway.
		due := now.Sub(e.lastFrame)
		if e.frameWanted() && due >= e.rt.FrameTarget() && (!keyed || due >= 3*e.rt.FrameTarget()) {
			if e.frameProbe != nil {
				e.frameProbe(true)
			}
			e.frame(now)
			framed = true
		} else if !keyed && e.intakeWanted() && now.Sub(e.lastIntake) >= intakeGap {
			if e.frameProbe != nil {
				e.frameProbe(true)
			}
			e.intake(now)
			framed = true
		}
		e.settle()
		e.journalWake = e.journalTick(time.Now())
		e.draw()
		if framed {
			e.stats.add(now, time.Since(now))
			if e.frameProbe != nil {
				e.frameProbe(false)
			}
		}
		timer.Reset(e.nextWake(time.Now()))
		if !e.frameWanted() && len(events) == 0 && len(e.calls) == 0 {
			e.idleGC.Idle()
		}
	}
	return nil
}

// frameWanted reports whether a frame has work: replies to take (including
// those a frame left when its budget ran out), tasks to resume or stream
// batches to hand out, or a shown buffer that redraws every frame. Tasks
// parked on what a reply will wake (a watch's stream, a job in flight) are
// not work: the reply fires the runtime's Ready, which the loop waits on.
func (e *session) frameWanted() bool {
	return e.replies || e.rt.Pending() || e.lb.WantsFrame() || e.hooks.hasFrame(e.cur.id) || len(e.grepViews) > 0
}

// idleWake is how long an idle loop sleeps at most: now and then it wakes so
// the status line's frame figures age out.
const idleWake = time.Second

// nextWake is how long the loop may sleep when no event comes: a frame
// target while frames have work (an intake gap while a grep view has
// batches waiting), else until the next task timer (a sleep, an await's
// timeout) or journal write is due, at most idleWake.
func (e *session) nextWake(now time.Time) time.Duration {
	d := idleWake
	if e.frameWanted() {
		next := e.lastFrame.Add(e.rt.FrameTarget())
		if e.intakeWanted() {
			next = minTime(next, e.lastIntake.Add(intakeGap))
		}
		d = max(next.Sub(now), 0)
	}
	if at, ok := e.lb.NextTimer(); ok {
		d = min(d, max(at.Sub(now), 0))
	}
	if !e.journalWake.IsZero() {
		d = min(d, max(e.journalWake.Sub(now), 0))
	}
	return d
}

// frame is one frame: the Lua frame driver (tick, settle, resume tasks),
// then what it reported: filesystem changes, failed tasks, frame hooks.
func (e *session) frame(now time.Time) {
	e.lastFrame = now
	e.take(now)
	e.raise(event{name: "frame", buf: e.cur.id})
}

// intakeGap is the least time between two turns that take a search's
// matches without being a frame. A live grep's pace is the stream credit
// (8,192 matches) per take: one take a frame held "func" over GOROOT/src
// (146,000 matches) to 0.31 s where rg takes 0.13 s, the searcher waiting on
// the loop between frames. With a take every intakeGap in between, each
// still within the frame budget, the searcher is held back only by its own
// speed, and a key waits for at most one such turn.
const intakeGap = 4 * time.Millisecond

// intakeWanted reports whether an editor grep view has batches waiting: a
// turn between frames takes them (see intakeGap).
func (e *session) intakeWanted() bool {
	return len(e.grepViews) > 0 && (e.replies || e.rt.Pending())
}

// intake is a turn between frames that takes the waiting replies (within the
// frame budget, as a frame does) without raising the frame event.
func (e *session) intake(now time.Time) {
	e.take(now)
}

// take applies the runtime's replies and hands out what they carry: the
// binding's frame (the tick and the tasks it resumes), the editor's grep
// views' batches, resource events and failed tasks.
func (e *session) take(now time.Time) {
	e.lastIntake = now
	e.replies = false
	fs := e.lb.Frame()
	e.takeGrepBatches(fs.Unclaimed)
	for _, op := range fs.Tick.Resources {
		e.raise(event{name: "resource", op: op})
	}
	for _, t := range e.lb.TakeFailed() {
		if err := t.Err(); err != nil {
			e.reportTaskError("task", err)
		}
	}
}

func minTime(a, b time.Time) time.Time {
	if a.Before(b) {
		return a
	}
	return b
}

// followResources makes the buffers visiting a renamed file or a file in a
// renamed directory visit the new path. It runs in the frame before any
// task resumes (luabind.Options.OnTick), so a task awaiting the rename sees
// its buffers moved; scripts hear of the mutations after the frame, in the
// "resource" event (dired refreshes).
func (e *session) followResources(out runtime.TickOutcome) {
	for _, op := range out.Resources {
		if op.Op != runtime.ResourceRename {
			continue
		}
		from, _ := filepath.Abs(op.From)
		to, _ := filepath.Abs(op.To)
		for _, b := range e.bufs {
			if b.path == "" {
				continue
			}
			if b.path == from {
				b.path = to
				b.name = filepath.Base(to)
				b.lang = languageFor(to)
			} else if rel, err := filepath.Rel(from, b.path); err == nil && filepath.IsLocal(rel) {
				b.path = filepath.Join(to, rel)
			}
		}
	}
}

// call runs fn on the main goroutine and waits for it (tests use it to read
// the editor's state without a race). It returns false if the loop ended.
func (e *session) call(fn func()) bool {
	done := make(chan struct{})
	select {
	case e.calls <- func() { fn(); close(done) }:
	case <-e.stop:
		return false
	}
	select {
	case <-done:
		return true
	case <-e.stop:
		return false
	}
}

// goIO runs fn on a helper goroutine (file reads and writes: they may block
// for as long as the disk likes) and hands its result back to the main
// goroutine as the func it returns.
func (e *session) goIO(fn func() func()) {
	e.ioWG.Add(1)
	go func() {
		defer e.ioWG.Done()
		done := fn()
		select {
		case e.calls <- done:
		case <-e.stop:
		}
	}()
}

// stopLuaEvery is how often StopLua interrupts again.
const stopLuaEvery = 10 * time.Millisecond

// StopLua stops the Lua code of a run that is ending (a signal, a
// cancelled context): it calls interrupt (a Binding's Interrupt) now and
// again every stopLuaEvery until done is closed. One Interrupt stops only
// the code running at that moment; the next task a frame resumes, or code
// that started after it, would run on, and a loop that never waits would
// then keep the run from ever reaching its end.
func StopLua(interrupt func(), done <-chan struct{}) {
	t := time.NewTicker(stopLuaEvery)
	defer t.Stop()
	for {
		interrupt()
		select {
		case <-done:
			return
		case <-t.C:
		}
	}
}

// interruptOnQuitKey relays terminal events to the main loop, calling
// interrupt first for every C-g. It runs on its own goroutine so that C-g
// reaches Lua even while the main goroutine is stuck in a script that never
// returns: the script then fails with "interrupted" and the loop goes on,
// and the C-g itself is still handled as a key (it also cancels a prompt).
// It closes out when in closes.
func interruptOnQuitKey(in <-chan tcell.Event, out chan<- tcell.Event, interrupt func()) {
	defer close(out)
	for ev := range in {
		if k, ok := ev.(*tcell.EventKey); ok && keyName(k) == "C-g" {
			interrupt()
		}
		out <- ev
	}
}
