package luabind

import (
	"fmt"
	"time"

	lua "github.com/yuin/gopher-lua"

	"github.com/pmacs-go/pmacs-go/lsp"
	"github.com/pmacs-go/pmacs-go/runtime"
)

// LSPBatchSize caps how many items of an array result one h:batches() step
// hands to Lua. Results are built into Lua tables on the client's reader
// goroutine (see lspShaped), so a step only gathers ready items into the
// batch's table.
const LSPBatchSize = 200

// lspFrameBudget is the main-goroutine time, counted from the start of a
// frame, during which a task's h:batches() loop gets its next batch at
// once, in the same frame; after it, the loop waits for the next frame, so
// a task working through a big result spreads its own work over frames.
const lspFrameBudget = 3 * time.Millisecond

// lspState is the binding's language clients and the requests they own.
type lspState struct {
	clients []*lspClient
	// owner maps a request's job to its client, until it settles.
	owner map[runtime.JobID]*lspClient
	// big keeps the array results being iterated with h:batches(), by
	// job; iters are the jobs whose task waits for its next batch at the
	// next frame.
	big   map[*job]*lspItems
	iters []*job
	// frameEnd ends this frame's lspFrameBudget.
	frameEnd time.Time
	// settledHook, when set (by benchmarks), sees each result the binding
	// takes from a client.
	settledHook func(lsp.Result)
	mt          *lua.LTable
}

// lspItems is an array result a task iterates: the array's table, built
// on the reader, its length, and how many items have been handed to Lua.
type lspItems struct {
	items *lua.LTable
	n     int
	next  int
}

type lspClient struct {
	c       *lsp.Client
	name    string
	langID  string
	onDiag  *lua.LFunction
	onApply *lua.LFunction // workspace/applyEdit (lsp_applyedit.go)
	onWatch *lua.LFunction // file watchers changed (lsp_watch.go)
	// ud is the client's Lua value, the one pmacs.lsp.start returned:
	// the hooks (on_diagnostics, on_apply_edit, on_watchers) get it, so a
	// script may key a table by it.
	ud       *lua.LUserData
	root     string
	messages []lsp.Message
	stopped  bool
	// detach removes the client from the runtime's pollers.
	detach func()
	// stopHandle is what client:stop() returned: the same handle for every
	// call.
	stopHandle *lua.LUserData
}

func (s *lspState) init() {
	if s.owner == nil {
		s.owner = make(map[runtime.JobID]*lspClient)
		s.big = make(map[*job]*lspItems)
	}
}

func init() {
	registerKind("lsp", kindBinding{
		kinds: map[runtime.Kind]kindLua{lsp.RequestKind: {
			value: externalToLua,
			settle: func(b *Binding, j *job) bool {
				c := b.lsp.owner[j.id]
				if c != nil {
					b.settleLSP(j, c)
				}
				return c != nil
			},
			batches: (*Binding).lspBatches,
		}},
		install: func(b *Binding, t *installTables) {
			b.lsp.init()
			b.lsp.mt = metatable(t.L, map[string]lua.LGFunction{
				"request": b.lspRequest, "notify": b.lspNotify, "open": b.lspOpen,
				"change": b.lspChange, "save": b.lspSave, "close": b.lspClose, "version": b.lspVersion,
				"diagnostics": b.lspDiagnostics, "on_diagnostics": b.lspOnDiagnostics,
				"stop": b.lspStop, "status": b.lspStatus, "messages": b.lspMessages,
				"on_apply_edit": b.lspOnApplyEdit, "supports": b.lspSupports,
				"capabilities": b.lspCapabilities, "registrations": b.lspRegistrations,
				"semantic_tokens":  b.lspSemanticTokens,
				"pull_diagnostics": b.lspPullDiagnostics, "pull_workspace_diagnostics": b.lspPullWorkspaceDiagnostics,
				"diagnostic_refresh": b.lspDiagnosticRefresh, "encoding": b.lspEncoding,
				"units": b.lspUnits, "byte_col": b.lspByteCol,
				"root": b.lspRoot, "watchers": b.lspWatchers, "on_watchers": b.lspOnWatchers, "file_changes": b.lspFileChanges,
			}, b.lspString)
			t.set(t.sub(t.pmacs, "lsp"), map[string]lua.LGFunction{"start": b.lspStart})
		},
	})
}

// startLSPFrame runs at the start of every frame, before the runtime's
// Tick (which polls the live clients, so their settled requests land in
// this frame): it lets go of the clients gone for good, and hands each
// task waiting in an LSP h:batches() loop its next batch.
func (b *Binding) startLSPFrame() {
	if len(b.lsp.clients) == 0 && len(b.lsp.iters) == 0 {
		return
	}
	budget := lspFrameBudget
	if b.budget > 0 {
		budget = min(budget, b.budget)
	}
	b.lsp.frameEnd = time.Now().Add(budget)
	live := b.lsp.clients[:0]
	for _, c := range b.lsp.clients {
		select {
		case <-c.c.Done():
			// A client gone for good: what is left is its exit, which
			// fails what is still pending and settles its stop handle.
			// That takes the frame's budget like any poll: a client with
			// a backlog stays, and is polled again, until a poll finds
			// nothing left.
			if c.c.Poll(max(time.Until(b.lsp.frameEnd), time.Nanosecond)) > 0 {
				live = append(live, c)
				continue
			}
			// Its watchers went with it: the script stops watching.
			b.lspWatchersHook(c)
			c.detach()
			continue
		default:
		}
		live = append(live, c)
	}
	clear(b.lsp.clients[len(live):])
	b.lsp.clients = live

	iters := b.lsp.iters
	b.lsp.iters = nil
	for _, j := range iters {
		if t := j.consumer; t != nil {
			j.consumer = nil
			b.run = append(b.run, resumption{t: t, vals: []lua.LValue{b.lspNextBatch(j)}})
		}
	}
}

// closeLSP stops every client and waits until each is gone, so no server
// outlives the binding. lsp.CloseAll closes them side by side on one
// clock: their servers shut down (and are killed, if need be) together,
// and the whole wait stays within lsp.CloseTimeout however many there
// are, even when none of them can be reaped.
func (b *Binding) closeLSP() {
	cs := make([]*lsp.Client, len(b.lsp.clients))
	for i, c := range b.lsp.clients {
		cs[i] = c.c
	}
	if err := lsp.CloseAll(cs...); err != nil {
		errs := []error{err}
		if j, ok := err.(interface{ Unwrap() []error }); ok {
			errs = j.Unwrap()
		}
		for _, e := range errs {
			fmt.Fprintf(b.stderr, "luabind: %v\n", e)
		}
	}
	for _, c := range b.lsp.clients {
		c.detach()
	}
	b.lsp.clients = nil
}
