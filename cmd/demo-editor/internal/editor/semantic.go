package editor

import (
	"cmp"
	"math/bits"
	"slices"

	lua "github.com/yuin/gopher-lua"

	"github.com/pmacs-go/pmacs-go/lsp"
	"github.com/pmacs-go/pmacs-go/textpos"
)

// A language server's semantic tokens colour a buffer in a layer of their
// own (buffer.sem), drawn over the syntax highlights (buffer.hl): where a
// token speaks its colour wins, elsewhere the tree-sitter colours show, and
// each layer is set without touching the other. Edits move the layer's
// spans as they move the syntax spans, until the server's next answer
// replaces them.
//
// A whole file's tokens (53,000 for the benchmark's 20,000-row Go file) are grouped by
// row, given their faces and turned from UTF-16 to byte columns on a
// helper goroutine, against a copy of the rows as they were when asked: the
// main goroutine copies the row slice and, once the spans are back,
// installs them only if the text has not changed since, so no token
// computed for older text is painted on newer.

// semFaces maps a token's type and modifiers to a face: byType[t][0] is
// type t's face, byType[t][m+1] its face with modifier bit m; a modifier
// with no face of its own (0) leaves the type's.
type semFaces struct {
	byType [][]face
}

func (f *semFaces) face(typ, mods uint32) face {
	if int(typ) >= len(f.byType) {
		return 0
	}
	row := f.byType[typ]
	for mods != 0 {
		m := bits.TrailingZeros32(mods)
		if m+1 < len(row) && row[m+1] != 0 {
			return row[m+1]
		}
		mods &^= 1 << m
	}
	return row[0]
}

// semanticSpans groups tokens (sorted by row) into per-row spans of byte
// columns of lines. Tokens of rows past lines, of no face, or empty once
// clipped to their row are left out. The spans share one backing array;
// each row's slice is capped, so an edit that appends to one row's spans
// copies them rather than writing over the next row's.
func semanticSpans(tokens []lsp.SemanticToken, lines *rowStore, faces *semFaces) hlRows {
	if len(tokens) == 0 {
		return hlRows{}
	}
	first := int(tokens[0].Line)
	last := min(int(tokens[len(tokens)-1].Line), lines.len()-1)
	if first > last {
		return hlRows{}
	}
	out := hlRows{first: first, rows: make([][]hlSpan, last-first+1)}
	all := make([]hlSpan, 0, len(tokens))
	for i := 0; i < len(tokens); {
		row := int(tokens[i].Line)
		j := i
		for j < len(tokens) && int(tokens[j].Line) == row {
			j++
		}
		if row > last {
			break
		}
		line := lines.row(row)
		start := len(all)
		for _, t := range tokens[i:j] {
			f := faces.face(t.Type, t.Mods)
			if f == 0 {
				continue
			}
			s := textpos.ByteCol(line, int(t.Col), textpos.UTF16)
			e := textpos.ByteCol(line, int(t.Col)+int(t.Len), textpos.UTF16)
			if e > s {
				all = append(all, hlSpan{s, e, f})
			}
		}
		if len(all) > start {
			out.rows[row-first] = all[start:len(all):len(all)]
		}
		i = j
	}
	return out
}

// semFacesArg reads ed.set_semantic_tokens' map {types = {group per legend
// type}, modifiers = {suffix per legend modifier}}: a token of type t
// takes the face types[t+1] ("" or false: no colour), or, when it has a
// modifier m with a suffix, types[t+1] .. "." .. suffix (the first such
// modifier in legend order), which falls back to the type's style unless
// that group has one of its own.
func (e *session) semFacesArg(L *lua.LState, fname string, n int) *semFaces {
	t, ok := L.Get(n).(*lua.LTable)
	if !ok {
		argErr(L, fname, n, "map", "a table {types = {...}, modifiers = {...}}")
	}
	list := func(name string) []string {
		v := t.RawGetString(name)
		if v == lua.LNil {
			return nil
		}
		lt, ok := v.(*lua.LTable)
		if !ok {
			L.RaiseError("pmacs.editor.%s: map field '%s' expected a list of strings", fname, name)
		}
		out := make([]string, lt.Len())
		for i := range out {
			switch s := lt.RawGetInt(i + 1).(type) {
			case lua.LString:
				out[i] = string(s)
			case lua.LBool:
				if s {
					L.RaiseError("pmacs.editor.%s: map field '%s' item %d expected a string or false", fname, name, i+1)
				}
			default:
				L.RaiseError("pmacs.editor.%s: map field '%s' item %d expected a string or false", fname, name, i+1)
			}
		}
		return out
	}
	types, mods := list("types"), list("modifiers")
	// A legend is a few dozen names: the map's faces are all interned here,
	// on the main goroutine, so the helper only reads them.
	if len(types) > 1024 || len(mods) > 32 {
		L.RaiseError("pmacs.editor.%s: map holds %d types and %d modifiers (at most 1024 and 32)", fname, len(types), len(mods))
	}
	f := &semFaces{byType: make([][]face, len(types))}
	for ti, g := range types {
		row := make([]face, len(mods)+1)
		if g != "" {
			row[0] = e.faces.intern(g)
			for mi, suf := range mods {
				if suf != "" {
					row[mi+1] = e.faces.intern(g + "." + suf)
				}
			}
		}
		f.byType[ti] = row
	}
	return f
}

// semTokensArg reads the tokens: a compact client:semantic_tokens result,
// or a list of {line, col, len, type, mods} rows (sorted here).
func semTokensArg(L *lua.LState, fname string, n int) []lsp.SemanticToken {
	switch v := L.Get(n).(type) {
	case *lua.LUserData:
		if st, ok := v.Value.(*lsp.SemanticTokens); ok {
			return st.Tokens
		}
	case *lua.LTable:
		out := make([]lsp.SemanticToken, 0, v.Len())
		for i := 1; i <= v.Len(); i++ {
			r, ok := v.RawGetInt(i).(*lua.LTable)
			if !ok {
				L.RaiseError("pmacs.editor.%s: token %d expected a table {line, col, len, type, mods}", fname, i)
			}
			var nums [5]uint32
			for k, name := range [5]string{"line", "col", "len", "type", "mods"} {
				x, ok := spanField(r, name, k+1).(lua.LNumber)
				if !ok || x < 0 || x > 1<<32-1 {
					L.RaiseError("pmacs.editor.%s: token %d field '%s' expected a whole number >= 0", fname, i, name)
				}
				nums[k] = uint32(x)
			}
			out = append(out, lsp.SemanticToken{Line: nums[0], Col: nums[1], Len: nums[2], Type: nums[3], Mods: nums[4]})
		}
		slices.SortStableFunc(out, func(a, b lsp.SemanticToken) int {
			return cmp.Or(cmp.Compare(a.Line, b.Line), cmp.Compare(a.Col, b.Col))
		})
		return out
	}
	argErr(L, fname, n, "tokens", "semantic tokens (client:semantic_tokens with compact = true) or a list of {line, col, len, type, mods}")
	return nil
}

// luaSetSemanticTokens is ed.set_semantic_tokens(buf, tokens, map [,
// on_done [, revision]]): tokens (LSP rows and UTF-16 columns) become
// buf's semantic layer, replacing it, once converted off the main
// goroutine; on_done(true) then runs, or on_done(false) when buf changed
// or closed meanwhile (or is no longer at revision, ed.revision's value
// when the tokens were asked for) and nothing was painted.
func (e *session) luaSetSemanticTokens(L *lua.LState) int {
	const fname = "set_semantic_tokens"
	b := e.bufArg(L, fname, 1)
	tokens := semTokensArg(L, fname, 2)
	faces := e.semFacesArg(L, fname, 3)
	var onDone *lua.LFunction
	if L.Get(4) != lua.LNil {
		onDone = fnArg(L, fname, 4, "on_done")
	}
	rev := b.rev
	if L.Get(5) != lua.LNil {
		n, ok := L.Get(5).(lua.LNumber)
		if !ok || n < 0 {
			argErr(L, fname, 5, "revision", "a number (ed.revision)")
		}
		if uint64(n) != b.rev {
			if onDone != nil {
				e.callLua(onDone, "set_semantic_tokens on_done", lua.LFalse)
			}
			return 0
		}
	}
	// A frozen copy of the rows is the text as it is now, safe to read
	// from another goroutine.
	lines := b.lines.freeze()
	e.goIO(func() func() {
		spans := semanticSpans(tokens, lines, faces)
		return func() {
			applied := e.bufs[b.id] == b && b.rev == rev
			if applied {
				b.sem, b.semRev = spans, rev
				b.markDirty(0)
			}
			if onDone != nil {
				e.callLua(onDone, "set_semantic_tokens on_done", lua.LBool(applied))
			}
		}
	})
	return 0
}

// luaClearSemanticTokens is ed.clear_semantic_tokens(buf).
func (e *session) luaClearSemanticTokens(L *lua.LState) int {
	b := e.bufArg(L, "clear_semantic_tokens", 1)
	if len(b.sem.rows) > 0 {
		b.sem = hlRows{}
		b.markDirty(0)
	}
	return 0
}
