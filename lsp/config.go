package lsp

import (
	"time"

	"github.com/go-json-experiment/json/jsontext"
	"go.lsp.dev/protocol"
)

// Defaults for the zero values of Config.
const (
	DefaultStopGrace      = time.Second
	DefaultPollBudget     = 4 * time.Millisecond
	DefaultMaxRestarts    = 5
	DefaultRestartBackoff = time.Second
	// maxUntakenResults bounds the results kept for TakeResult: a host that
	// never takes them loses the oldest, not memory.
	maxUntakenResults = 256
	maxMessagesKept   = 1000
	maxMessageBytes   = 4 << 20
	// maxProgressKept bounds the progress in flight kept for Progress, and
	// maxProgressJobs the *workers* jobs showing the server's own: a server
	// that begins work and never ends it cannot grow either without limit.
	maxProgressKept = 256
	maxProgressJobs = 64
)

// Config describes a language server and how the client answers it.
type Config struct {
	// Argv is the server program and its arguments.
	Argv []string
	// Dir is the server's working directory; "" means the caller's.
	Dir string
	// Env holds "KEY=value" entries added to the environment the server
	// inherits from the editor; an entry overrides an inherited variable
	// of the same name, and a later entry an earlier one. nil adds none.
	Env []string
	// Root is the workspace folder path; "" means Dir.
	Root string
	// Settings answers workspace/configuration: an item's section is looked
	// up as a key, and an empty section gets the whole map.
	Settings map[string]any
	// InitializationOptions is sent as initialize's initializationOptions.
	InitializationOptions any
	// ApplyEdit applies a workspace/applyEdit from the server. It is called
	// on the main goroutine (inside Poll) and gives its answer through
	// answer, at once or later on the main goroutine: the server waits for
	// it, so a hook that must first wait (for the text of a file not yet
	// open) keeps answer and calls it when the edit is applied or refused.
	// Only the first call counts, and none once the client is stopping or
	// the server process that asked has died. nil refuses every edit with
	// a reason.
	ApplyEdit func(edit *protocol.WorkspaceEdit, answer func(applied bool, failureReason string))
	// ResourceOperations are the file operations ("create", "rename",
	// "delete") ApplyEdit carries out, advertised to the server as
	// workspace.workspaceEdit.resourceOperations; nil advertises none.
	ResourceOperations []string
	// WatchFiles tells the server that the host watches files for it:
	// workspace.didChangeWatchedFiles with dynamic registration (and
	// relative patterns) is announced, so a server such as gopls
	// registers its watchers (FileWatchers) and expects the host to hand
	// the changes to DidChangeWatchedFiles. false announces nothing.
	WatchFiles bool
	// StopGrace is how long Stop waits after shutdown before it sends
	// SIGTERM to the server's tree (SIGKILL follows a second later); 0
	// means DefaultStopGrace. Close waits at most a second, whatever it is.
	StopGrace time.Duration
	// PollBudget bounds the main-goroutine time one Poll spends on
	// messages, whatever the frame's budget; the rest wait for the next
	// Poll. 0 means DefaultPollBudget.
	PollBudget time.Duration
	// MaxRestarts is how many times, over the client's life, a server that
	// died is started again; 0 means DefaultMaxRestarts, a negative value
	// none.
	MaxRestarts int
	// RestartBackoff is the wait before the first restart, doubled before
	// each further one; 0 means DefaultRestartBackoff.
	RestartBackoff time.Duration
	// BeforeLaunch, when set, is asked before every start of the server
	// program, the first (inside Start) and each restart (inside Poll),
	// on the main goroutine with a copy of Argv: whether the program may
	// still run is decided then, not only once (the workspace it lies in
	// may have been untrusted since, or the file replaced). An error stops
	// that launch: Start returns it, and a restart ends the client for
	// good, no further restart, with the error as Err and as the cause of
	// the requests that waited for the new server. Either way it is
	// wrapped with ErrLaunchRefused.
	BeforeLaunch func(argv []string) error
	// Shape, when set, turns each result into the form the host consumes,
	// on the reader goroutine after it is decoded: it receives the method,
	// the result's raw JSON and the decoded value (see Result.Value), and
	// what it returns becomes Result.Value. An error fails the request.
	// The Lua binding shapes results into tables-to-be there, so the main
	// goroutine only builds the tables. Not called for initialize and
	// shutdown, whose results the client itself reads.
	Shape func(method string, raw jsontext.Value, decoded any) (any, error)
	// A panic in Shape fails that request with an error wrapping
	// ErrHookPanicked that gives the panic's value.
	//
	// ShapeDiagnostics, when set, turns each publishDiagnostics into the
	// form the host consumes, on the reader goroutine after it is decoded;
	// ShapedDiagnostics returns it for the latest publication. The Lua
	// binding builds the rows' tables there. A publication it panics on
	// is dropped (Stats.HookPanics counts it; the first is told in
	// TakeMessages).
	ShapeDiagnostics func(*protocol.PublishDiagnosticsParams) any
	// DocumentText gives an open document's current text when a restarted
	// server reopens it (called on the main goroutine, inside Poll); nil
	// uses the text the client last synced: the text Open sent with every
	// edit Change recorded since, saved or not.
	DocumentText func(path string) ([]byte, error)
	// MaxFrame is the largest message, in bytes, the client reads from the
	// server; 0 means DefaultMaxFrame (64 MiB), and it is clamped to
	// [MinMaxFrame, MaxMaxFrame]. A larger message is skipped unread as it
	// streams by (see the package doc, "Bounds").
	MaxFrame int
	// InboxBytes bounds the bytes of the server's messages read but not
	// yet handled by Poll: past it, the reader stops reading until Poll
	// catches up. 0 means DefaultInboxBytes (64 MiB); clamped to
	// [MinQueueBytes, MaxQueueBytes].
	InboxBytes int
	// OutboxBytes bounds the bytes of the client's messages the server has
	// not read yet: past it, the server is taken for hung and restarted
	// (see the package doc, "Bounds"). 0 means DefaultOutboxBytes (64
	// MiB); clamped to [MinQueueBytes, MaxQueueBytes].
	OutboxBytes int
}

// clampBytes is a byte bound of Config: def for 0 (or less), else v
// within [lo, hi].
func clampBytes(v, def, lo, hi int) int {
	if v <= 0 {
		return def
	}
	return min(max(v, lo), hi)
}
