package editor

import (
	"fmt"
	"regexp"
	"strings"

	lua "github.com/yuin/gopher-lua"

	"github.com/pmacs-go/pmacs-go/textpos"
)

// replacer finds a pattern's matches in a line and says what each becomes:
// the replacement as it is for a literal pattern, or with \0-\9 standing
// for the regex's groups.
type replacer struct {
	re       *regexp.Regexp
	template string // regexp.Expand's form of the replacement (regex only)
	literal  string // the replacement of a literal pattern
	regex    bool
}

// newReplacer compiles pattern (Go's RE2 syntax when regex, else literal
// text; case-folded unless caseSensitive) and replacement.
func newReplacer(pattern, replacement string, regex, caseSensitive bool) (*replacer, error) {
	if pattern == "" {
		return nil, fmt.Errorf("empty pattern")
	}
	src := pattern
	if !regex {
		src = regexp.QuoteMeta(src)
	}
	if !caseSensitive {
		src = "(?i)" + src
	}
	re, err := regexp.Compile(src)
	if err != nil {
		return nil, fmt.Errorf("invalid regex %q: %w", pattern, err)
	}
	r := &replacer{re: re, literal: replacement, regex: regex}
	if regex {
		if r.template, err = expandTemplate(replacement, re.NumSubexp()); err != nil {
			return nil, err
		}
	}
	return r, nil
}

// expandTemplate turns a replacement written with \N groups into
// regexp.Expand's: \N becomes ${N}, \\ a backslash, $ a literal dollar. A
// group the pattern does not have is an error, not an empty string.
func expandTemplate(repl string, groups int) (string, error) {
	var sb strings.Builder
	for i := 0; i < len(repl); i++ {
		c := repl[i]
		switch {
		case c == '$':
			sb.WriteString("$$")
		case c == '\\' && i+1 < len(repl) && repl[i+1] >= '0' && repl[i+1] <= '9':
			n := int(repl[i+1] - '0')
			if n > groups {
				return "", fmt.Errorf("replacement %q uses group \\%d, but the pattern has %d", repl, n, groups)
			}
			fmt.Fprintf(&sb, "${%d}", n)
			i++
		case c == '\\' && i+1 < len(repl) && repl[i+1] == '\\':
			sb.WriteByte('\\')
			i++
		default:
			sb.WriteByte(c)
		}
	}
	return sb.String(), nil
}

// line calls fn with each match of line: its byte range and what it
// becomes.
func (r *replacer) line(line string, fn func(start, end int, text string)) {
	for _, m := range r.re.FindAllStringSubmatchIndex(line, -1) {
		text := r.literal
		if r.regex {
			text = string(r.re.ExpandString(nil, r.template, line, m))
		}
		fn(m[0], m[1], text)
	}
}

// luaReplaceMatches is ed.replace_matches(buf, spec): every match of
// spec.pattern in the buffer (or in spec.rows) as an edit for
// apply_text_edits, with the match's byte columns and text beside it.
func (e *session) luaReplaceMatches(L *lua.LState) int {
	const fname = "replace_matches"
	b := e.bufArg(L, fname, 1)
	t := optTable(L, fname, 2, "spec", "pattern", "replacement", "regex", "case_sensitive", "rows")
	if t == nil {
		argErr(L, fname, 2, "spec", "a table {pattern =, replacement =, ...}")
	}
	str := func(name string) string {
		v, ok := t.RawGetString(name).(lua.LString)
		if !ok {
			L.RaiseError("pmacs.editor.%s: spec.%s expected a string, got %s", fname, name, t.RawGetString(name).Type().String())
		}
		return string(v)
	}
	pattern, replacement := str("pattern"), str("replacement")
	r, err := newReplacer(pattern, replacement, optBool(t, "regex", false), optBool(t, "case_sensitive", true))
	if err != nil {
		L.RaiseError("pmacs.editor.%s: %v", fname, err)
	}
	if b.loading {
		return pushErr(L, fmt.Errorf("%s is still loading", b.name))
	}
	var rows []int // nil: every row
	switch v := t.RawGetString("rows").(type) {
	case *lua.LNilType:
	case *lua.LTable:
		for i := 1; i <= v.Len(); i++ {
			n, ok := v.RawGetInt(i).(lua.LNumber)
			row := int(n)
			if !ok || float64(n) != float64(row) || row < 0 || row >= b.lines.len() {
				L.RaiseError("pmacs.editor.%s: spec.rows item %d is not a row of %s (0 to %d)", fname, i, b.name, b.lines.len()-1)
			}
			if i > 1 && row <= rows[len(rows)-1] {
				L.RaiseError("pmacs.editor.%s: spec.rows must be in increasing order (item %d)", fname, i)
			}
			rows = append(rows, row)
		}
	default:
		L.RaiseError("pmacs.editor.%s: spec.rows expected a list of rows, got %s", fname, v.Type().String())
	}
	out := L.NewTable()
	each := func(row int, line string) {
		r.line(line, func(s, end int, text string) {
			m := L.CreateTable(0, 8)
			m.RawSetString("line", lua.LNumber(row))
			m.RawSetString("end_line", lua.LNumber(row))
			m.RawSetString("col", lua.LNumber(textpos.Units(line, s, textpos.UTF16)))
			m.RawSetString("end_col", lua.LNumber(textpos.Units(line, end, textpos.UTF16)))
			m.RawSetString("text", lua.LString(text))
			m.RawSetString("byte_col", lua.LNumber(s))
			m.RawSetString("byte_end", lua.LNumber(end))
			m.RawSetString("old", lua.LString(line[s:end]))
			out.Append(m)
		})
	}
	if rows == nil {
		// Walked in order: the store finds each row from the last, where
		// asking for rows one by one searches for every one afresh.
		for row, line := range b.lines.rows(0, b.lines.len()) {
			each(row, line)
		}
	}
	for _, row := range rows {
		each(row, b.lines.row(row))
	}
	L.Push(out)
	return 1
}
