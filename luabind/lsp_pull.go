package luabind

import (
	lua "github.com/yuin/gopher-lua"

	"github.com/pmacs-go/pmacs-go/lsp"
	"github.com/pmacs-go/pmacs-go/textpos"
)

// requestOpts reads a client method's {key =, timeout_ms =} at idx.
func requestOpts(L *lua.LState, fname string, idx int) lsp.RequestOptions {
	f := checkTable(L, fname, idx, "opts", "option", true, "key", "timeout_ms")
	var opts lsp.RequestOptions
	if f.t != nil {
		opts.Key = f.str("key", false, "")
		opts.Timeout = msField(f, "timeout_ms")
	}
	return opts
}

// lspPullDiagnostics is client:pull_diagnostics(path[, opts]): a handle
// (kind lsp_request) that awaits {kind, result_id, full, unchanged} once
// the server's report is stored, its diagnostics read by
// client:diagnostics and the on_diagnostics hook like published ones
// (lsp.Client.PullDiagnostics).
func (b *Binding) lspPullDiagnostics(L *lua.LState) int {
	const fname = "client:pull_diagnostics"
	c := checkClient(L, fname)
	path := absPath(checkString(L, fname, 2, "path"))
	id := c.c.PullDiagnostics(path, requestOpts(L, fname, 3))
	b.lsp.owner[id] = c
	L.Push(b.newHandle(L, id, lsp.RequestKind, false))
	return 1
}

// lspPullWorkspaceDiagnostics is client:pull_workspace_diagnostics([opts]):
// workspace/diagnostic, stored as pull_diagnostics stores a document's.
func (b *Binding) lspPullWorkspaceDiagnostics(L *lua.LState) int {
	const fname = "client:pull_workspace_diagnostics"
	c := checkClient(L, fname)
	id := c.c.PullWorkspaceDiagnostics(requestOpts(L, fname, 2))
	b.lsp.owner[id] = c
	L.Push(b.newHandle(L, id, lsp.RequestKind, false))
	return 1
}

// lspDiagnosticRefresh is client:diagnostic_refresh(): true, once, when the
// server has asked (workspace/diagnostic/refresh) for every document's
// diagnostics to be pulled again since the last call.
func (b *Binding) lspDiagnosticRefresh(L *lua.LState) int {
	c := checkClient(L, "client:diagnostic_refresh")
	L.Push(lua.LBool(c.c.TakeDiagnosticRefresh()))
	return 1
}

// lspEncoding is client:encoding(): "utf-8" or "utf-16", the unit of the
// columns of every position the client and the server exchange.
func (b *Binding) lspEncoding(L *lua.LState) int {
	c := checkClient(L, "client:encoding")
	L.Push(lua.LString(c.c.Encoding().String()))
	return 1
}

// lspUnits is client:units(line, byte_col): the column the server counts
// for a byte column of line (pmacs.utf16.units, or the byte column itself
// for a server that chose UTF-8).
func (b *Binding) lspUnits(L *lua.LState) int {
	const fname = "client:units"
	c := checkClient(L, fname)
	line := checkString(L, fname, 2, "line")
	L.Push(column(textpos.Units(line, checkColumn(L, fname, 3, "byte_col"), c.c.Encoding())))
	return 1
}

// lspByteCol is client:byte_col(line, units): the byte column of line a
// column the server sent names.
func (b *Binding) lspByteCol(L *lua.LState) int {
	const fname = "client:byte_col"
	c := checkClient(L, fname)
	line := checkString(L, fname, 2, "line")
	L.Push(column(textpos.ByteCol(line, checkColumn(L, fname, 3, "units"), c.c.Encoding())))
	return 1
}
