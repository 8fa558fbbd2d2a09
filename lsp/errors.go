package lsp

import (
	"errors"
	"fmt"
	"strconv"
)

// LSP and JSON-RPC error codes a server may answer with.
const (
	CodeParseError           = -32700
	CodeInvalidRequest       = -32600
	CodeMethodNotFound       = -32601
	CodeInvalidParams        = -32602
	CodeInternalError        = -32603
	CodeServerNotInitialized = -32002
	CodeUnknownErrorCode     = -32001
	CodeRequestFailed        = -32803
	CodeServerCancelled      = -32802
	CodeContentModified      = -32801
	CodeRequestCancelled     = -32800
)

var codeNames = map[int64]string{
	CodeParseError:           "ParseError",
	CodeInvalidRequest:       "InvalidRequest",
	CodeMethodNotFound:       "MethodNotFound",
	CodeInvalidParams:        "InvalidParams",
	CodeInternalError:        "InternalError",
	CodeServerNotInitialized: "ServerNotInitialized",
	CodeUnknownErrorCode:     "UnknownErrorCode",
	CodeRequestFailed:        "RequestFailed",
	CodeServerCancelled:      "ServerCancelled",
	CodeContentModified:      "ContentModified",
	CodeRequestCancelled:     "RequestCancelled",
}

// CodeName returns the LSP name of an error code ("RequestCancelled",
// "ContentModified", ...), or "Error<code>" for a code the protocol does not
// name.
func CodeName(code int64) string {
	if n, ok := codeNames[code]; ok {
		return n
	}
	return "Error" + strconv.FormatInt(code, 10)
}

// ResponseError is an error a server answered a request with.
type ResponseError struct {
	Method  string
	Code    int64
	Message string
}

// Error reads like `lsp textDocument/hover: ContentModified (-32801): content
// modified`, so the settled job's message names the code.
func (e *ResponseError) Error() string {
	return fmt.Sprintf("lsp %s: %s (%d): %s", e.Method, CodeName(e.Code), e.Code, e.Message)
}

// Name returns the code's LSP name.
func (e *ResponseError) Name() string { return CodeName(e.Code) }

var (
	// ErrServerExited is the cause of every request the server's death left
	// unanswered, and of requests made after it.
	ErrServerExited = errors.New("lsp: language server exited")
	// ErrStopped is the cause of requests made or pending when Stop was
	// called.
	ErrStopped = errors.New("lsp: language client stopped")
	// ErrTimeout is the cause of a request whose RequestOptions.Timeout
	// passed before the server answered.
	ErrTimeout = errors.New("lsp: request timed out")
	// ErrNotOpen is returned by document calls for a path that is not open.
	ErrNotOpen = errors.New("lsp: document not open")
	// ErrAlreadyOpen is returned by Open for a path that is open.
	ErrAlreadyOpen = errors.New("lsp: document already open")
	// ErrFrameTooLarge is the cause of a request whose reply was larger
	// than Config.MaxFrame (the message says how large, and the limit),
	// and of the restart of a server that sent such a message when the
	// client could not tell which request it answered, or a
	// Content-Length of BrokenFrame or more.
	ErrFrameTooLarge = errors.New("lsp: message too large")
	// ErrNotReading is the cause of the restart of a server that left
	// Config.OutboxBytes of the client's messages unread: it is taken for
	// hung, and the requests pending on it fail.
	ErrNotReading = errors.New("lsp: the server is not reading its input")
	// ErrHookPanicked is the cause of a request whose Config.Shape
	// panicked (the message gives the panic's value), and names a
	// publication dropped because Config.ShapeDiagnostics did.
	ErrHookPanicked = errors.New("lsp: a client hook panicked")
	// ErrLaunchRefused is the cause of a start or restart that
	// Config.BeforeLaunch refused (the error wraps its reason too).
	ErrLaunchRefused = errors.New("lsp: launch refused")
)
