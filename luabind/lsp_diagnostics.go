package luabind

import (
	"strings"

	lua "github.com/yuin/gopher-lua"
	"go.lsp.dev/protocol"

	"github.com/pmacs-go/pmacs-go/fileuri"
)

// lspDiagnostics is client:diagnostics(path): a list of {line, col,
// end_line, end_col, severity, message, source, code}, zero-based, and
// the field dropped when the publication held more than
// lsp.MaxDiagnostics: how many past the listed first ones. The rows are
// built on the reader when the publication arrives (see
// shapeDiagnostics), so a call costs a list of references however many
// diagnostics there are; each call gets a list of its own, and the rows
// are the same tables until the server publishes again.
func (b *Binding) lspDiagnostics(L *lua.LState) int {
	c := checkClient(L, "client:diagnostics")
	path := absPath(checkString(L, "client:diagnostics", 2, "path"))
	var t *lua.LTable
	if rows, ok := c.c.ShapedDiagnostics(path).([]lua.LValue); ok {
		t = L.CreateTable(len(rows), 1)
		for i, r := range rows {
			t.RawSetInt(i+1, r)
		}
	} else {
		ds := c.c.Diagnostics(path)
		t = L.CreateTable(len(ds), 1)
		for i := range ds {
			t.RawSetInt(i+1, diagnosticToLua(L, &ds[i]))
		}
	}
	if n := c.c.DroppedDiagnostics(path); n > 0 {
		t.RawSetString("dropped", lua.LNumber(n))
	}
	L.Push(t)
	return 1
}

// shapeDiagnostics is the binding's lsp.Config.ShapeDiagnostics: the rows
// of client:diagnostics(), built on the reader (see lspShaped).
func shapeDiagnostics(p *protocol.PublishDiagnosticsParams) any {
	rows := make([]lua.LValue, len(p.Diagnostics))
	for i := range p.Diagnostics {
		rows[i] = diagnosticToLua(tables, &p.Diagnostics[i])
	}
	return rows
}

func diagnosticToLua(L *lua.LState, d *protocol.Diagnostic) *lua.LTable {
	t := L.CreateTable(0, 8)
	t.RawSetString("line", lua.LNumber(d.Range.Start.Line))
	t.RawSetString("col", lua.LNumber(d.Range.Start.Character))
	t.RawSetString("end_line", lua.LNumber(d.Range.End.Line))
	t.RawSetString("end_col", lua.LNumber(d.Range.End.Character))
	sev := d.Severity
	if sev == 0 {
		sev = protocol.DiagnosticSeverityError
	}
	t.RawSetString("severity", lua.LNumber(sev))
	switch m := d.Message.(type) {
	case protocol.String:
		t.RawSetString("message", lua.LString(m))
	case *protocol.MarkupContent:
		if m != nil {
			t.RawSetString("message", lua.LString(m.Value))
		}
	}
	if src, ok := d.Source.Get(); ok {
		t.RawSetString("source", lua.LString(src))
	}
	if d.Code != nil {
		if raw, err := protocol.Marshal(d.Code); err == nil {
			t.RawSetString("code", lua.LString(strings.Trim(string(raw), `"`)))
		}
	}
	return t
}

func (b *Binding) lspOnDiagnostics(L *lua.LState) int {
	c := checkClient(L, "client:on_diagnostics")
	switch v := L.Get(2).(type) {
	case *lua.LFunction:
		c.onDiag = v
	case *lua.LNilType:
		c.onDiag = nil
	default:
		argError(L, "client:on_diagnostics", 2, "hook", "a function or nil", v)
	}
	return 0
}

// lspDiagnosticsHooks runs after the frame's Tick has polled the clients:
// it starts the on_diagnostics hooks for the documents whose diagnostics
// changed, and the on_watchers hook of a client whose file watchers did.
func (b *Binding) lspDiagnosticsHooks() {
	for _, c := range b.lsp.clients {
		b.lspWatchersHook(c)
		changed := c.c.TakeChangedDiagnostics()
		if c.onDiag == nil {
			continue
		}
		for _, u := range changed {
			// A URI that names no local file has no path to give the
			// hook; client:diagnostics could not look it up either.
			p, err := fileuri.ToPath(string(u))
			if err != nil {
				continue
			}
			b.Spawn(c.onDiag, c.ud, lua.LString(p))
		}
	}
}
