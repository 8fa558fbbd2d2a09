package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// docExample is a ```lua block of a document and the heading it is under.
type docExample struct {
	line    int // of the opening fence, 1-based
	heading string
	src     string
}

// docExamples returns the ```lua blocks of doc that lie in the sections
// whose heading starts with one of sections; a section runs to the next
// heading of its level or above.
func docExamples(t *testing.T, doc string, sections []string) []docExample {
	t.Helper()
	var out []docExample
	level := 0 // of the section being read; 0 outside the named ones
	heading := ""
	var block *docExample
	other := false // inside a fenced block that is not Lua: its lines are no headings
	for i, line := range strings.Split(doc, "\n") {
		fence := strings.HasPrefix(strings.TrimSpace(line), "```")
		if block != nil {
			if fence {
				out = append(out, *block)
				block = nil
				continue
			}
			block.src += line + "\n"
			continue
		}
		if other {
			other = !fence
			continue
		}
		if strings.HasPrefix(line, "#") {
			n := len(line) - len(strings.TrimLeft(line, "#"))
			if level > 0 && n <= level {
				level = 0
			}
			for _, s := range sections {
				if strings.HasPrefix(line, s) && level == 0 {
					level = n
				}
			}
			heading = strings.TrimSpace(line[n:])
			continue
		}
		switch {
		case level > 0 && strings.TrimSpace(line) == "```lua":
			block = &docExample{line: i + 1, heading: heading}
		case fence:
			other = true
		}
	}
	require.Nil(t, block, "a ```lua block is never closed")
	return out
}

// The examples of the Tasks chapter of docs/lua-api.md (and of the
// sections on waiting under pcall and for loops) are what the chapter
// promises, asserted: each runs headless, as --script runs a file, and must
// end with status 0 and nothing on stderr (no failure, reported or not).
func TestLuaAPITaskExamplesRun(t *testing.T) {
	doc, err := os.ReadFile(filepath.Join("..", "..", "docs", "lua-api.md"))
	require.NoError(t, err)
	examples := docExamples(t, string(doc), []string{"## Tasks", "### Waiting under `pcall`", "### `for` loops"})
	// The chapter has an example per call; a heading renamed out of the
	// list above must not leave them unrun.
	require.GreaterOrEqual(t, len(examples), 20, "examples found")
	dir := t.TempDir()
	for _, ex := range examples {
		t.Run(fmt.Sprintf("line %d %s", ex.line, ex.heading), func(t *testing.T) {
			path := filepath.Join(dir, fmt.Sprintf("example_%d.lua", ex.line))
			require.NoError(t, os.WriteFile(path, []byte(ex.src), 0o644))
			code, out, errOut := run(t, path, nil, false)
			require.Equal(t, 0, code, "docs/lua-api.md:%d\nstdout:\n%s\nstderr:\n%s", ex.line, out, errOut)
			require.Empty(t, errOut, "docs/lua-api.md:%d", ex.line)
		})
	}
}
