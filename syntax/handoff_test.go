package syntax

import (
	"context"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"
)

// Acceptance (binding defect: Tree/Node are not safe to share across
// goroutines): a worker reparses against a Clone of a tree the main goroutine
// owns while main keeps reading the original (highlights, s-expression,
// injections). Run under -race this must report nothing, and the worker's
// results must equal fresh parses.
func TestWorkerReparsesAgainstACloneWhileMainReadsTheOriginal(t *testing.T) {
	for _, tc := range []struct{ lang, src string }{
		{"go", string(goroot(t, "sort/sort.go"))},
		{"markdown", "# T\n\nSome *text*.\n\n```lua\nlocal x = 1\n```\n\n- a `b`\n"},
	} {
		t.Run(tc.lang, func(t *testing.T) {
			main := mustParse(t, tc.lang, tc.src)
			handoff := main.Clone()

			type out struct {
				src  []byte
				tree *Tree
				err  error
			}
			results := make(chan out, 1)
			go func() {
				r := rand.New(rand.NewPCG(1, 2))
				prior, src := handoff, []byte(tc.src)
				var last out
				for range 10 {
					next, e := randomEdit(r, src)
					tree, err := Parse(context.Background(), Request{Source: next, Language: tc.lang, Prior: prior, Edits: []Edit{e}})
					if err != nil {
						last = out{err: err}
						break
					}
					prior.Close()
					prior, src = tree, next
					last = out{src: src, tree: tree}
				}
				results <- last
			}()

			var got out
			for reading := true; reading; {
				select {
				case got = <-results:
					reading = false
				default:
					_, err := main.Highlights(0, 200)
					require.NoError(t, err)
					require.NotEmpty(t, main.SExpr())
					for _, inj := range main.Injections() {
						require.NotEmpty(t, inj.Tree.SExpr())
					}
				}
			}
			require.NoError(t, got.err)
			defer got.tree.Close()
			require.Equal(t, mustParse(t, tc.lang, string(got.src)).SExpr(), got.tree.SExpr())
			require.Equal(t, tc.src, string(main.Source()), "the original is untouched")
		})
	}
}
