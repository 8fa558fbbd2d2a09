package luabind

import (
	"fmt"

	lua "github.com/yuin/gopher-lua"

	"github.com/pmacs-go/pmacs-go/mcp"
	"github.com/pmacs-go/pmacs-go/runtime"
)

// shapeMCPResult is the binding's mcp.HostConfig.Shape: it runs on the
// request's goroutine and builds the Lua value await returns there, by the
// one JSON-to-Lua conversion (luajson.go), as shapeLSPResult does for LSP
// results (see lspShaped: building tables touches no Lua state). It keeps
// the result's array (a tool call's content, a read's contents, a listing)
// for h:batches().
func shapeMCPResult(method string, v any) (any, error) {
	lv, err := luaFromValue(v)
	if err != nil {
		return nil, fmt.Errorf("shape result for Lua: %w", err)
	}
	sh := &lspShaped{v: lv}
	t, ok := lv.(*lua.LTable)
	if !ok {
		return sh, nil
	}
	switch x := v.(type) {
	case []any:
		sh.items, sh.n = t, len(x)
	case map[string]any:
		member := mcp.ItemsMember(method)
		if list, ok := x[member].([]any); ok && member != "" {
			if items, ok := t.RawGetString(member).(*lua.LTable); ok {
				sh.items, sh.n = items, len(list)
			}
		}
	}
	return sh, nil
}

// settleMCP settles an MCP request's handle from the host's shaped result:
// await's value is the table built on the request's goroutine, so the
// main goroutine converts nothing; a task iterating the handle with
// h:batches() gets the result's array LSPBatchSize items at a time, within
// the frame's budget, as for an LSP result (lspIter). A failure settles as
// on the common path (nil, message, code).
func (b *Binding) settleMCP(j *job) bool {
	var sh *lspShaped
	if b.mcp.host != nil {
		// Taken whatever the outcome, so a cancelled call's result is
		// not left behind.
		if v, ok := b.mcp.host.TakeResult(j.id); ok {
			sh, _ = v.(*lspShaped)
		}
	}
	out, ok := b.rt.TakeResult(j.id)
	if !ok {
		return true
	}
	var value lua.LValue = lua.LTrue
	if out.State == runtime.Complete {
		switch {
		case sh == nil:
			// Completed by someone other than the binding's host.
			value = externalToLua(b, out, nil)
		case sh.items != nil && j.iterated:
			b.lsp.big[j] = &lspItems{items: sh.items, n: sh.n}
			sum := b.ls.CreateTable(0, 2)
			if v, ok := out.External(); ok {
				if m, ok := v.(map[string]any); ok {
					sum.RawSetString("method", lua.LString(fmt.Sprint(m["method"])))
				}
			}
			sum.RawSetString("len", lua.LNumber(sh.n))
			value = sum
		case sh.v != lua.LNil:
			value = sh.v
		}
	}
	b.settled(j, out, value)
	b.wakeConsumer(j)
	return true
}
