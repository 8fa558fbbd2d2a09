package syntax

import (
	"context"
	"fmt"
	"reflect"
	"runtime"
	"sync"
	"sync/atomic"

	sitter "github.com/smacker/go-tree-sitter"
)

// maxIdleParsers bounds each pool: enough for every core to parse one
// language at once without keeping a parser per past burst of parses.
var maxIdleParsers = max(2, runtime.GOMAXPROCS(0))

// pooledParser is a binding parser plus direct access to the cancellation
// flag tree-sitter polls during a parse.
type pooledParser struct {
	p    *sitter.Parser
	flag *uintptr // nil if the binding's layout changed: fall back to its own watcher
	// dirty is set when a parse did not complete; tree-sitter would resume
	// that parse on the next call, so the parser is Reset before reuse.
	// Resetting lazily keeps the (possibly large) teardown off the
	// cancellation path.
	dirty bool
}

// parserPool is a LIFO free list rather than a sync.Pool: a sync.Pool drops
// items at every GC (and at random under the race detector), which would
// throw away parsers that are cheap to keep and make reuse unpredictable.
type parserPool struct {
	lang *sitter.Language
	mu   sync.Mutex
	idle []*pooledParser
}

func (pp *parserPool) get() *pooledParser {
	pp.mu.Lock()
	var p *pooledParser
	if n := len(pp.idle); n > 0 {
		p = pp.idle[n-1]
		pp.idle[n-1] = nil
		pp.idle = pp.idle[:n-1]
	}
	pp.mu.Unlock()
	if p == nil {
		bp := sitter.NewParser()
		bp.SetLanguage(pp.lang)
		return &pooledParser{p: bp, flag: cancelFlagOf(bp)}
	}
	if p.dirty {
		p.p.Reset()
		p.dirty = false
	}
	return p
}

func (pp *parserPool) put(p *pooledParser) {
	pp.mu.Lock()
	defer pp.mu.Unlock()
	if len(pp.idle) < maxIdleParsers {
		pp.idle = append(pp.idle, p)
	}
	// A parser dropped here is closed by the binding's finalizer.
}

// cancelFlagOf returns the flag the binding registered with
// ts_parser_set_cancellation_flag. The binding keeps it unexported and only
// sets it from a goroutine that can fire after the parse has returned; owning
// the flag lets Parse guarantee it is clear whenever a parser is idle.
func cancelFlagOf(p *sitter.Parser) *uintptr {
	v := reflect.ValueOf(p).Elem().FieldByName("cancel")
	if !v.IsValid() || v.Kind() != reflect.Pointer || v.Type().Elem().Kind() != reflect.Uintptr || v.IsNil() {
		return nil
	}
	return (*uintptr)(v.UnsafePointer())
}

// parseStartHook, when set by a test, runs just before tree-sitter starts, so
// a test can cancel a parse that is known to be running.
var parseStartHook func()

// run parses with ctx able to stop the parse while it runs. parse is the
// binding call to make with the context it is given: context.Background()
// when run owns the flag, ctx itself in the fallback.
func (p *pooledParser) run(ctx context.Context, parse func(context.Context) (*sitter.Tree, error)) (*sitter.Tree, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if parseStartHook != nil {
		parseStartHook()
	}
	if p.flag == nil {
		t, err := parse(ctx)
		return p.finish(ctx, t, err)
	}
	var mu sync.Mutex
	running := true
	// The watcher runs on a goroutine of its own, where a panic would end
	// the process: it is recovered there and raised again below, on the
	// goroutine that called Parse, whose caller can isolate it.
	var watcherPanic any
	watcherDone := make(chan struct{})
	stop := context.AfterFunc(ctx, func() {
		defer close(watcherDone)
		defer func() {
			if r := recover(); r != nil {
				watcherPanic = r
			}
		}()
		mu.Lock()
		defer mu.Unlock()
		if cancelWatchHook != nil {
			cancelWatchHook()
		}
		if running {
			atomic.StoreUintptr(p.flag, 1)
		}
	})
	t, err := parse(context.Background())
	mu.Lock()
	running = false
	mu.Unlock()
	if !stop() {
		// The watcher has started: wait for it, so that it neither
		// outlives this call nor panics unseen.
		<-watcherDone
	}
	// After running=false no watcher can raise the flag again, so clearing
	// it here cannot be undone by a late cancellation.
	atomic.StoreUintptr(p.flag, 0)
	if watcherPanic != nil {
		if t != nil {
			t.Close()
		}
		p.dirty = true
		if err, ok := watcherPanic.(error); ok {
			panic(fmt.Errorf("syntax: parse cancellation watcher panicked: %w", err))
		}
		panic(fmt.Errorf("syntax: parse cancellation watcher panicked: %v", watcherPanic))
	}
	return p.finish(ctx, t, err)
}

// cancelWatchHook, when set by a test, runs in the cancellation watcher
// before it raises the flag, so a test can make the watcher panic.
var cancelWatchHook func()

func (p *pooledParser) finish(ctx context.Context, t *sitter.Tree, err error) (*sitter.Tree, error) {
	if err == nil && t != nil {
		return t, nil
	}
	p.dirty = true
	if cerr := ctx.Err(); cerr != nil {
		return nil, cerr
	}
	if err == nil {
		err = sitter.ErrOperationLimit
	}
	return nil, err
}
