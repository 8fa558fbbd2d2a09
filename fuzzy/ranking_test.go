package fuzzy_test

import (
	"context"
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/pmacs-go/pmacs-go/fuzzy"
)

func loadPaths(t testing.TB) []string {
	t.Helper()
	data, err := os.ReadFile("testdata/paths.txt")
	require.NoError(t, err)
	return strings.Split(strings.TrimSpace(string(data)), "\n")
}

// TestRankingTopResult covers the ranking acceptance point: on a fixed list of a project's
// paths, queries typed the way a user looks for a file (name prefixes, initials, path
// fragments, extended terms) put the file the user meant first. The expected files were
// chosen by reading the list, not by running the matcher.
func TestRankingTopResult(t *testing.T) {
	paths := loadPaths(t)
	store := fuzzy.NewStore(paths)
	cases := []struct{ query, want string }{
		{"exec", "workers/executor.go"},
		{"supersede", "runtime/supersede.go"},
		{"rtsup", "runtime/supersede.go"},
		{"pick", "cmd/demo-editor/editor/picker.go"},
		{"keymap", "cmd/demo-editor/editor/keymap.go"},
		{"keys.lua", "cmd/demo-editor/lua/keys.lua"},
		{"readme", "README.md"},
		{"design", "docs/DESIGN.md"},
		{"gomod", "go.mod"},
		{"gosum", "go.sum"},
		{"filetree", "web/src/components/FileTree.tsx"},
		{"sbox", "web/src/components/SearchBox.tsx"},
		{"statbar", "web/src/components/StatusBar.tsx"},
		{"usedeb", "web/src/hooks/useDebounce.ts"},
		{"tsconf", "web/tsconfig.json"},
		{"pkgjson", "web/package.json"},
		{"ignore", "grep/ignore.go"},
		{"gitig", ".gitignore"},
		{"rename", "fsops/rename.go"},
		{"readdir", "fsops/read_dir.go"},
		{"getdents", "internal/getdents/getdents_linux.go"},
		{"eintr", "internal/eintr/eintr.go"},
		{"go highlights", "syntax/queries/go/highlights.scm"},
		{"ts highlights", "syntax/queries/typescript/highlights.scm"},
		{"edtest", "cmd/demo-editor/editor/editor_test.go"},
		{"bustest", "bus/bus_test.go"},
		{"rgtest", "grep/ripgrep_test.go"},
		{"sflight", "workers/singleflight.go"},
		{"snap", "runtime/snapshot.go"},
		{"ext", "runtime/external.go"},
		{"init.lua", "cmd/demo-editor/lua/init.lua"},
		{"demolua", "examples/demo.lua"},
		{"findf", "examples/find_files.lua"},
		{"release", "scripts/release.sh"},
		{"^web tsx$ index", "web/src/index.tsx"},
		{"'fsops !test", "fsops/fsops.go"},
		{"lane", "workers/lane.go"},
		{"permit", "workers/permit.go"},
		{"huge", "testdata/large/huge_file.txt"},
		{"credit", "bus/credit.go"},
		{"mk", "Makefile"},
		{"gstart", "docs/guide/getting-started.md"},
		{"hidden secret", "testdata/tree/.hidden/secret.txt"},
		{"lua md", "docs/api/lua.md"},
	}
	for _, c := range cases {
		res, err := fuzzy.Search(context.Background(), store, fuzzy.ParsePattern(c.query), fuzzy.Options{Limit: 5})
		require.NoError(t, err, c.query)
		require.NotEmpty(t, res.Matches, "query %q matched nothing", c.query)
		var got []string
		for _, m := range res.Matches {
			got = append(got, paths[m.Index])
		}
		require.Equal(t, c.want, got[0], "query %q ranked %v", c.query, got)
	}
}

// TestPositionsSpellQuery covers the positions acceptance point: for a one-term fuzzy query
// the positions of every returned match point, in order, at the query's characters.
func TestPositionsSpellQuery(t *testing.T) {
	paths := loadPaths(t)
	store := fuzzy.NewStore(paths)
	for _, q := range []string{"exec", "rtsup", "sbox", "usedeb", "gitig", "demolua", "e", "go", "keys.lua"} {
		res, err := fuzzy.Search(context.Background(), store, fuzzy.ParsePattern(q), fuzzy.Options{})
		require.NoError(t, err)
		require.NotEmpty(t, res.Matches, q)
		for _, m := range res.Matches {
			text := paths[m.Index]
			require.Len(t, m.Positions, len(q), "%q in %q", q, text)
			var spelled []byte
			for i, p := range m.Positions {
				if i > 0 {
					require.Greater(t, p, m.Positions[i-1])
				}
				spelled = append(spelled, strings.ToLower(text[p : p+1])[0])
			}
			require.Equal(t, q, string(spelled), "positions %v in %q", m.Positions, text)
		}
	}
}

// TestPositionsPreferBoundaries checks by hand-worked examples that the chosen alignment is
// the one a user expects to see highlighted: word starts and runs, not the first occurrence.
func TestPositionsPreferBoundaries(t *testing.T) {
	cases := []struct {
		text, query string
		want        []int
	}{
		// r(untime) t s(upersede): the second r, in supersede, would lose the start bonus.
		{"runtime/supersede.go", "rtsup", []int{0, 3, 8, 9, 10}},
		// The 'e' of workers is passed over for the run at the file name.
		{"workers/executor.go", "exec", []int{8, 9, 10, 11}},
		// Both camel humps, not the 'b' and 'x' of "box" alone.
		{"web/src/components/SearchBox.tsx", "sbox", []int{19, 25, 26, 27}},
		// One character: the occurrence at a word start, not the first one.
		{"workers/executor.go", "e", []int{8}},
		// An exact term highlights its whole occurrence, at the boundary one.
		{"xmain/main.go", "'main", []int{6, 7, 8, 9}},
		// A prefix and a suffix term together.
		{"cmd/main.go", "^cmd .go$", []int{0, 1, 2, 8, 9, 10}},
	}
	for _, c := range cases {
		store := fuzzy.NewStore([]string{c.text})
		res, err := fuzzy.Search(context.Background(), store, fuzzy.ParsePattern(c.query), fuzzy.Options{})
		require.NoError(t, err)
		require.Len(t, res.Matches, 1, c.query)
		require.Equal(t, c.want, res.Matches[0].Positions, "%q in %q", c.query, c.text)
	}
}
