package fuzzy_test

import (
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/pmacs-go/pmacs-go/fuzzy"
	"github.com/pmacs-go/pmacs-go/fuzzy/internal/pathgen"
	"github.com/pmacs-go/pmacs-go/internal/testenv"
)

// agreementQueries are 50 queries typed the way a user looks for a file in the Go tree.
var agreementQueries = []string{
	"http", "gofmt", "rtsched", "netip", "encjson", "synatom", "osexec", "strconv",
	"cmd/compile ssa", "json decode", "httptest", "mapiter", "chan.go", "select", "malloc",
	"mgc", "proc.go", "sort", "slices", "bufio", "bytesbuf", "filepath", "pathmatch",
	"regexp syntax", "textemplate", "htmltemplate", "gzip", "zipreader", "tarwriter",
	"crypto tls", "x509", "sha256", "ecdsa", "testing", "fuzz", "asm_amd64", "sys_linux",
	"syscall linux", "reflect value", "unicode utf8", "errors wrap", "context", "ticker",
	"netpoll", "runtime/trace", "pprof", "vet", "README", "_test.go$ ^net", "'math !big",
}

// fzfBinary finds fzf: .bin/fzf at the module root (where .ci/run installs it), then PATH.
func fzfBinary(t testing.TB) string {
	t.Helper()
	return testenv.Peer(t, testenv.Fzf)
}

// fzfFilter returns the lines `fzf --filter query` prints for input, best first.
func fzfFilter(t testing.TB, fzf, input, query string) []string {
	t.Helper()
	cmd := exec.Command(fzf, "--filter", query)
	cmd.Stdin = strings.NewReader(input)
	cmd.Env = append(os.Environ(), "FZF_DEFAULT_OPTS=", "FZF_DEFAULT_OPTS_FILE=")
	var out bytes.Buffer
	cmd.Stdout = &out
	err := cmd.Run()
	var exit *exec.ExitError
	if err != nil && !(errors.As(err, &exit) && exit.ExitCode() == 1) {
		require.NoError(t, err, "fzf --filter %q", query)
	}
	if out.Len() == 0 {
		return nil
	}
	return strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n")
}

// TestAgreesWithFzf covers the agreement acceptance point: on the GOROOT/src file list and
// on the project-shaped list of testdata, fzf --filter and Search give the same top result
// for at least 90% of the queries and top-10 sets overlapping at least 80%.
func TestAgreesWithFzf(t *testing.T) {
	fzf := fzfBinary(t)
	goroot, err := pathgen.GoRootFiles()
	require.NoError(t, err)
	require.NotEmpty(t, goroot)
	inputs := []struct {
		name    string
		items   []string
		queries []string
	}{
		{"GOROOT/src", goroot, agreementQueries},
		{"testdata/paths.txt", loadPaths(t), []string{"exec", "rtsup", "sbox", "gitig", "mk", "ft", "ed", "lua", "test", "go"}},
	}
	for _, in := range inputs {
		store := fuzzy.NewStore(in.items)
		input := strings.Join(in.items, "\n") + "\n"
		sameTop, compared := 0, 0
		overlapSum := 0.0
		for _, q := range in.queries {
			want := fzfFilter(t, fzf, input, q)
			res, err := fuzzy.Search(context.Background(), store, fuzzy.ParsePattern(q), fuzzy.Options{Limit: 10, NoPositions: true})
			require.NoError(t, err)
			require.NotEmpty(t, want, "fzf matched nothing for %q; pick queries that match", q)
			got := make([]string, len(res.Matches))
			for i, m := range res.Matches {
				got[i] = in.items[m.Index]
			}
			compared++
			if len(got) > 0 && got[0] == want[0] {
				sameTop++
			} else {
				t.Logf("%s %q: fzf top %q, ours %v", in.name, q, want[0], got)
			}
			top := want[:min(10, len(want))]
			inTop := map[string]bool{}
			for _, w := range top {
				inTop[w] = true
			}
			common := 0
			for _, g := range got {
				if inTop[g] {
					common++
				}
			}
			overlapSum += float64(common) / float64(len(top))
		}
		topRate := float64(sameTop) / float64(compared)
		overlap := overlapSum / float64(compared)
		t.Logf("%s: %d queries, same top result %.0f%%, mean top-10 overlap %.0f%%", in.name, compared, 100*topRate, 100*overlap)
		require.GreaterOrEqual(t, topRate, 0.90, in.name)
		require.GreaterOrEqual(t, overlap, 0.80, in.name)
	}
}

// TestFilterOrderMatchesFzf goes further than the acceptance bar: for queries of every term
// kind, including one-character queries and candidates that start with punctuation, the
// whole ranked list equals fzf --filter's output line for line.
func TestFilterOrderMatchesFzf(t *testing.T) {
	fzf := fzfBinary(t)
	goroot, err := pathgen.GoRootFiles()
	require.NoError(t, err)
	inputs := []struct {
		items   []string
		queries []string
	}{
		{goroot, []string{"rtsched", "e", "'sort", "^net", "!test go$", "a | zz", "'json'", "^go.mod$", "r", "READ", "!'xyz strconv"}},
		{loadPaths(t), []string{".", "_", "-", "g", "c", "'.g", "^.", "n$"}},
	}
	for _, in := range inputs {
		store := fuzzy.NewStore(in.items)
		input := strings.Join(in.items, "\n") + "\n"
		for _, q := range in.queries {
			want := fzfFilter(t, fzf, input, q)
			res, err := fuzzy.Search(context.Background(), store, fuzzy.ParsePattern(q), fuzzy.Options{NoPositions: true})
			require.NoError(t, err)
			got := make([]string, len(res.Matches))
			for i, m := range res.Matches {
				got[i] = in.items[m.Index]
			}
			require.NotEmpty(t, want, "fzf matched nothing for %q; pick queries that match", q)
			require.Equal(t, want, got, "order for %q", q)
		}
	}
}

// TestLongCandidatesMatchFzf checks candidates too long for the alignment matrix: fzf
// scores those greedily when the whole text (not the matched span) times the query length
// passes its bound, and so must we, or a long line whose match sits early ranks differently.
func TestLongCandidatesMatchFzf(t *testing.T) {
	fzf := fzfBinary(t)
	pad := strings.Repeat("y", 30000)
	items := []string{
		"a-b-c-d/abcd" + pad, // short span, long text: greedy finds the scattered a-b-c-d
		"q/ab_cd",
		"a-b-c-d/abcd",
		pad + "/abcd",
		"x/abcd/" + pad + "a-b-c-d",
	}
	input := strings.Join(items, "\n") + "\n"
	for _, q := range []string{"abcd", "abcd abc", "bcd"} {
		want := fzfFilter(t, fzf, input, q)
		res, err := fuzzy.Search(context.Background(), fuzzy.NewStore(items), fuzzy.ParsePattern(q), fuzzy.Options{})
		require.NoError(t, err)
		got := make([]string, len(res.Matches))
		for i, m := range res.Matches {
			got[i] = items[m.Index]
		}
		require.Equal(t, want, got, "order for %q", q)
	}
}

// TestNonASCIITieBreakMatchesFzf covers the length tie-break on texts with multi-byte
// characters: fzf counts characters, so of two equal scores the text with fewer
// characters (not bytes) ranks first, whatever the order of the list.
func TestNonASCIITieBreakMatchesFzf(t *testing.T) {
	fzf := fzfBinary(t)
	items := []string{
		"docs/aaa/readme.md",
		"docs/ééé/readme.md",
		"docs/ab/readme.md",
		"docs/日本/readme.md",
		"docs/aé/readme.md",
		"  docs/x/readme.md  ",
		"   ",
	}
	input := strings.Join(items, "\n") + "\n"
	store := fuzzy.NewStore(items)
	for _, q := range []string{"readme", "'readme.md", "md$", "docs"} {
		want := fzfFilter(t, fzf, input, q)
		for _, limit := range []int{0, 2} {
			res, err := fuzzy.Search(context.Background(), store, fuzzy.ParsePattern(q), fuzzy.Options{Limit: limit, NoPositions: true})
			require.NoError(t, err)
			got := make([]string, len(res.Matches))
			for i, m := range res.Matches {
				got[i] = items[m.Index]
			}
			w := want
			if limit > 0 {
				w = want[:limit]
			}
			require.Equal(t, w, got, "order for %q, limit %d", q, limit)
		}
	}
}

// TestNonASCIIMatchesFzf covers Unicode case folding and accent normalization: on a list
// of accented, upper-case, fullwidth and CJK paths, queries with and without accents and
// of every term kind rank exactly as fzf --filter ranks them (an ASCII query matches
// accented letters; a query holding an accent matches only that accent; case folds for
// non-ASCII letters unless the query has upper case; gaps count characters).
func TestNonASCIIMatchesFzf(t *testing.T) {
	fzf := fzfBinary(t)
	items := []string{
		"docs/résumé.md",
		"docs/resume.md",
		"docs/RÉSUMÉ-final.md",
		"école/Élève/notes.txt",
		"ecole/eleve/notes.txt",
		"café/menu.go",
		"cafe/menu.go",
		"CAFÉ/Menu_test.go",
		"über/straße/Öl.go",
		"uber/strasse/ol.go",
		"niño/año.txt",
		"nino/ano.txt",
		"日本語/ファイル.go",
		"日本/語.md",
		"ｆｕｌｌ/ｗｉｄｔｈ.txt",
		"full/width.txt",
		"ÅngströmÅ/ÆØÅ.md",
		"ängel/Ängel.md",
		"mixed/ÀÉÎÕÜ/àéîõü.md",
		"x/ab-é-cd.go",
		"x/ab-e-cd.go",
	}
	input := strings.Join(items, "\n") + "\n"
	store := fuzzy.NewStore(items)
	for _, q := range []string{
		"resume", "résumé", "RÉSUMÉ", "Résumé", "ecole", "école", "ÉCOLE", "eleve", "cafe", "café",
		"CAFÉ", "uber", "über", "Über", "strasse", "straße", "ol", "öl", "nino", "niño", "ano",
		"日本", "語", "ファイル", "full", "ｆｕｌｌ", "width", "angstrom", "ångström", "ængel",
		"angel", "ängel", "aeiou", "àéîõü", "ÀÉÎÕÜ", "abecd", "ab-é", "e", "é",
		"^ecole", "^école", "'cafe", "'café", "md$", "é.md$", "^niño/año.txt$", "!é md", "résumé | uber",
	} {
		want := fzfFilter(t, fzf, input, q)
		for _, limit := range []int{0, 3} {
			res, err := fuzzy.Search(context.Background(), store, fuzzy.ParsePattern(q), fuzzy.Options{Limit: limit})
			require.NoError(t, err)
			got := make([]string, len(res.Matches))
			for i, m := range res.Matches {
				got[i] = items[m.Index]
			}
			w := want
			if limit > 0 && len(w) > limit {
				w = w[:limit]
			}
			if len(w) == 0 {
				require.Empty(t, got, "matches for %q", q)
				continue
			}
			require.Equal(t, w, got, "order for %q, limit %d", q, limit)
		}
	}
}
