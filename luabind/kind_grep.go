package luabind

import (
	lua "github.com/yuin/gopher-lua"

	"github.com/pmacs-go/pmacs-go/grep"
	"github.com/pmacs-go/pmacs-go/kinds/grepjob"
	"github.com/pmacs-go/pmacs-go/runtime"
)

// pmacs.workers.grep: a search of a tree's files, streamed as matches.

func init() {
	registerKind("grep", kindBinding{
		kinds: map[runtime.Kind]kindLua{
			grepjob.Kind: {items: matchesToLua, closing: func(b *Binding, sb *runtime.StreamBatch) lua.LValue {
				t := b.ls.CreateTable(0, 1)
				t.RawSetString("files_searched", lua.LNumber(sb.Progress))
				return t
			}},
		},
		install: func(b *Binding, t *installTables) {
			t.set(t.workers, map[string]lua.LGFunction{"grep": b.grep})
		},
	})
}

func (b *Binding) grep(L *lua.LState) int {
	const fname = "pmacs.workers.grep"
	f := checkTable(L, fname, 1, "spec", "field", false,
		"root", "pattern", "regex", "case_sensitive", "hidden", "no_ignore", "skip_dirs",
		"max_results", "max_file_bytes", "max_match_text", "key", "max_batch")
	spec := grep.Spec{
		Root:         f.str("root", true, ""),
		Pattern:      f.str("pattern", true, ""),
		Regex:        f.boolean("regex", false),
		IgnoreCase:   !f.boolean("case_sensitive", true),
		Hidden:       f.boolean("hidden", false),
		NoIgnore:     f.boolean("no_ignore", false),
		SkipDirs:     f.strings("skip_dirs"),
		MaxResults:   int(f.count("max_results")),
		MaxFileBytes: f.count("max_file_bytes"),
		MaxMatchText: int(f.count("max_match_text")),
	}
	b.safeRead(L, fname, spec.Root, true)
	o := b.dispatchOptions(f, true)
	return b.push(L, o, grepjob.Kind, true, func() runtime.JobID { return grepjob.Dispatch(b.rt, spec, o) })
}

// matchesToLua appends grep matches as tables.
func matchesToLua(L *lua.LState, t *lua.LTable, it runtime.Items) {
	ms := it.(grepjob.Matches)
	for i := range ms {
		t.Append(matchToLua(L, &ms[i]))
	}
}

func matchToLua(L *lua.LState, m *grep.Match) *lua.LTable {
	t := L.CreateTable(0, 6)
	t.RawSetString("file", lua.LString(m.File))
	t.RawSetString("line", lua.LNumber(m.Line))
	t.RawSetString("text", lua.LString(m.Text))
	t.RawSetString("match_start", lua.LNumber(m.MatchStart))
	t.RawSetString("match_end", lua.LNumber(m.MatchEnd))
	spans := L.CreateTable(len(m.Spans), 0)
	for _, s := range m.Spans {
		p := L.CreateTable(2, 0)
		p.Append(lua.LNumber(s[0]))
		p.Append(lua.LNumber(s[1]))
		spans.Append(p)
	}
	t.RawSetString("spans", spans)
	return t
}
