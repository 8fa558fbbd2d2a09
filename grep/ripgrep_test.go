package grep_test

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/require"

	"github.com/pmacs-go/pmacs-go/grep"
	"github.com/pmacs-go/pmacs-go/internal/testenv"
)

// ripgrepArgs are the rg flags equivalent to a Spec with SkipDirs empty and the other options
// at their zero values: no config file, line numbers, one path per line (NUL after it), the
// same size cap and thread count, and no global gitignore (core.excludesFile), which Search
// does not read. Hidden files, symlinks, .ignore, .gitignore in work trees, info/exclude and
// parent directories' ignore files are ripgrep's defaults and ours.
func ripgrepArgs(fanout int) []string {
	return []string{"--no-config", "-n", "--no-heading", "--null", "--color", "never",
		"--max-filesize", "16M", "-j", strconv.Itoa(fanout), "--no-ignore-global"}
}

// ripgrepLines runs rg in root and returns the set of "file:line" it reports, and how many
// lines it left out of the set for not being valid UTF-8: Search skips them by design,
// ripgrep searches bytes.
func ripgrepLines(t *testing.T, root string, args ...string) (map[string]bool, int) {
	t.Helper()
	cmd := exec.Command("rg", args...)
	cmd.Dir = root
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	require.NoError(t, err, "rg %v: %s", args, stderr.String())
	set := map[string]bool{}
	invalid := 0
	for _, rec := range bytes.Split(out, []byte{'\n'}) {
		path, rest, ok := bytes.Cut(rec, []byte{0})
		if !ok {
			continue // not a match record (e.g. a trailing empty line)
		}
		num, text, ok := bytes.Cut(rest, []byte{':'})
		require.True(t, ok, "unparsable rg output %q", rec)
		if !utf8.Valid(text) {
			invalid++
			continue
		}
		set[strings.TrimPrefix(string(path), "./")+":"+string(num)] = true
	}
	return set, invalid
}

// ripgrepCount runs rg --count in root and returns the matching lines it counts in all.
func ripgrepCount(t *testing.T, root string, args ...string) int {
	t.Helper()
	cmd := exec.Command("rg", append([]string{"--count"}, args...)...)
	cmd.Dir = root
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	require.NoError(t, err, "rg --count %v: %s", args, stderr.String())
	total := 0
	for _, rec := range bytes.Split(out, []byte{'\n'}) {
		_, count, ok := bytes.Cut(rec, []byte{0})
		if !ok {
			continue
		}
		n, err := strconv.Atoi(string(count))
		require.NoError(t, err, "unparsable rg --count output %q", rec)
		total += n
	}
	return total
}

func searchLines(t *testing.T, spec grep.Spec) (map[string]bool, grep.Stats) {
	t.Helper()
	var mu sync.Mutex
	set := map[string]bool{}
	st, err := grep.Search(context.Background(), spec, func(ms []grep.Match) error {
		mu.Lock()
		defer mu.Unlock()
		for _, m := range ms {
			set[fmt.Sprintf("%s:%d", m.File, m.Line)] = true
		}
		return nil
	})
	require.NoError(t, err)
	return set, st
}

// Acceptance (real peer): over the Go source tree, Search reports the same (file, line) set as
// ripgrep with equivalent flags, for a rare literal, a common literal, a regex (rg's (?-u)
// gives Go's ASCII \w) and case-insensitive searches. The one tolerated difference is the
// binary heuristic: we skip a file with a NUL in its first 8 KiB, ripgrep one with a NUL in
// its first read buffer (64 KiB) and stops at a later NUL; any differing file must hold a NUL.
// The common literal (135k lines) is skipped in -short mode.
func TestSearchAgreesWithRipgrepOnGoSource(t *testing.T) {
	testenv.Peer(t, testenv.Ripgrep)
	root := testenv.GoSrcOrSkip(t)
	const fanout = 2
	cases := []struct {
		name  string
		spec  grep.Spec
		rg    []string
		short bool
	}{
		{"rare literal", grep.Spec{Pattern: "ErrUnexpectedEOF"}, []string{"-F", "ErrUnexpectedEOF"}, true},
		{"common literal", grep.Spec{Pattern: "func"}, []string{"-F", "func"}, false},
		{"regex", grep.Spec{Pattern: `func \w+\(`, Regex: true}, []string{`(?-u)func \w+\(`}, true},
		{"ignore-case literal", grep.Spec{Pattern: "errUNEXPECTEDeof", IgnoreCase: true}, []string{"-i", "-F", "errUNEXPECTEDeof"}, true},
		{"ignore-case regex", grep.Spec{Pattern: `unexpected\s+EOF`, Regex: true, IgnoreCase: true}, []string{"-i", `unexpected(?-u:\s)+EOF`}, true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if !c.short && testing.Short() {
				t.Skip("135k-line comparison skipped in -short mode")
			}
			spec := c.spec
			spec.Root = root
			spec.SkipDirs = []string{}
			spec.Fanout = fanout
			ours, st := searchLines(t, spec)
			args := append(append(ripgrepArgs(fanout), c.rg...), ".")
			theirs, invalid := ripgrepLines(t, root, args...)
			// The comparison is not vacuous and the parsed output is complete: rg's own count
			// of matching lines, taken in the same run, is positive and every counted line is
			// in the set or was left out as invalid UTF-8.
			counted := ripgrepCount(t, root, args...)
			require.Positive(t, counted, "rg finds nothing: the comparison would prove nothing")
			require.Equal(t, counted, len(theirs)+invalid, "rg --count against the parsed lines")
			var diff []string
			for k := range ours {
				if !theirs[k] {
					diff = append(diff, "only ours: "+k)
				}
			}
			for k := range theirs {
				if !ours[k] {
					diff = append(diff, "only rg: "+k)
				}
			}
			sort.Strings(diff)
			for _, d := range diff {
				file := d[strings.Index(d, ": ")+2 : strings.LastIndexByte(d, ':')]
				data, err := os.ReadFile(filepath.Join(root, file))
				require.NoError(t, err)
				require.True(t, bytes.IndexByte(data, 0) >= 0, "%s (and %d differences in all)", d, len(diff))
			}
			t.Logf("%d lines (rg %d), %d files searched, %d matched, %d binary-heuristic differences",
				len(ours), len(theirs), st.FilesSearched, st.FilesMatched, len(diff))
		})
	}
}

// Acceptance (real peer): on a work tree whose ignore files use every part of the glob syntax
// (and the star-heavy line of issue 11), Search reaches the same files as ripgrep.
func TestSearchAgreesWithRipgrepOnIgnoreFiles(t *testing.T) {
	testenv.Peer(t, testenv.Ripgrep)
	ignores := map[string]string{
		".gitignore": "*.log\n!keep.log\n/build\nout/\n**/gen/*.go\ndocs/**/*.tmp\n*a*a*a*a*a*a*a*a*a*a*b\n" +
			"[Tt]emp*\n*.py[co]\n\\#lit\nsub/*.x\nfoo?bar\ntrail   \nspace\\ \n[!a-m]*.z\nlib/**\n# comment\n*.[0-9]\n",
		".ignore":        "*.ign\n!special.ign\n",
		"sub/.gitignore": "!*.log\nlocal*\n/anchored.txt\n",
		"q/.ignore":      "?.md\nm/**/n\n[ü]?.c\n",
	}
	names := []string{"a.log", "keep.log", "x/b.log", "build/f.txt", "sub/build/f.txt", "out/f.txt",
		"x/out/f.txt", "gen/a.go", "x/gen/b.go", "x/gen/y/c.go", "docs/a.tmp", "docs/x/y/b.tmp", "docs.tmp",
		strings.Repeat("a", 40) + "b", strings.Repeat("a", 41), strings.Repeat("a", 39) + "xb",
		"Temp1.txt", "temp2.txt", "xtemp.txt", "m.pyc", "m.pyo", "m.py", "#lit", "lit", "sub/q.x", "sub/deep/q.x",
		"fooXbar", "foo/bar", "a.ign", "special.ign", "sub/c.log", "sub/local1.txt", "sub/x/local2.txt",
		"sub/anchored.txt", "sub/deep/anchored.txt", "trail", "space ", "space", "n.z", "b.z", "lib/x.txt",
		"x/lib/y.txt", "lib2", "v.1", "v.10", "é.log", "é.txt",
		"q/é.md", "q/ab.md", "q/a.md", "q/m/n", "q/m/x/n", "q/m/x/y/n", "q/mm/n", "q/x/m/n",
		"q/é.c", "q/ü.c", "q/x.c", "q/éé.c"}
	tree := map[string]string{}
	for name, body := range ignores {
		tree[name] = body
	}
	for _, n := range names {
		if _, dup := tree[n]; dup {
			t.Fatalf("duplicate %q", n)
		}
		tree[n] = "needle\n"
	}
	root := makeTree(t, tree)
	require.NoError(t, os.Mkdir(filepath.Join(root, ".git"), 0o755))

	ours, _ := searchLines(t, grep.Spec{Root: root, Pattern: "needle", SkipDirs: []string{}, Fanout: 2})
	theirs, _ := ripgrepLines(t, root, append(ripgrepArgs(2), "-F", "needle", ".")...)
	require.NotEmpty(t, theirs)
	require.Less(t, len(theirs), len(names), "the ignore files ignore something")
	require.Equal(t, sortedKeys(theirs), sortedKeys(ours))
}

func sortedKeys(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
