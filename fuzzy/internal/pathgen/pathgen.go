// Package pathgen builds the candidate lists that fuzzy's tests, benchmarks and fuzzbench
// share: the file list of the Go source tree and a deterministic synthetic list of paths.
package pathgen

import (
	"fmt"
	"io/fs"
	"math/rand/v2"
	"path/filepath"
	"sort"
	"strings"

	"github.com/pmacs-go/pmacs-go/internal/testenv"
)

// GoRootSrc returns the directory `go env GOROOT`/src.
func GoRootSrc() (string, error) { return testenv.GoSrc() }

// GoRootFiles returns every regular file under `go env GOROOT`/src, relative to it with
// forward slashes, sorted.
func GoRootFiles() ([]string, error) {
	src, err := GoRootSrc()
	if err != nil {
		return nil, err
	}
	var out []string
	err = filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.Type().IsRegular() {
			rel, err := filepath.Rel(src, p)
			if err != nil {
				return err
			}
			out = append(out, filepath.ToSlash(rel))
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("pathgen: walk %s: %w", src, err)
	}
	sort.Strings(out)
	return out, nil
}

var (
	words = strings.Fields(`src lib internal pkg cmd app core util net http server client
		api model view controller store cache config runtime editor buffer window layout
		render syntax parser lexer token tree node graph index search fuzzy match score rank
		worker pool queue job task event loop signal timer clock file path dir walk ignore
		plugin lua script command keymap theme color font text line word cursor selection
		history undo redo diff patch merge commit branch remote auth user session token
		crypto hash codec json yaml toml proto grpc stream reader writer encoder decoder
		test bench mock fixture example docs assets images styles vendor third_party build`)
	exts = strings.Fields(`go go go rs ts tsx js py c h cc md txt json yaml toml lua sh`)
)

// Synthetic returns n paths drawn deterministically (the same n gives the same list): 1 to 7
// directories from a vocabulary of common names, then a file name in snake, kebab or camel
// case with a number and an extension.
func Synthetic(n int) []string {
	r := rand.New(rand.NewPCG(1, 2))
	out := make([]string, 0, n)
	var b strings.Builder
	for i := 0; len(out) < n; i++ {
		b.Reset()
		depth := 1 + r.IntN(7)
		for d := 0; d < depth; d++ {
			b.WriteString(words[r.IntN(len(words))])
			b.WriteByte('/')
		}
		parts := 1 + r.IntN(3)
		style := r.IntN(3)
		for k := 0; k < parts; k++ {
			w := words[r.IntN(len(words))]
			switch {
			case k == 0:
			case style == 0:
				b.WriteByte('_')
			case style == 1:
				b.WriteByte('-')
			default:
				w = strings.ToUpper(w[:1]) + w[1:]
			}
			b.WriteString(w)
		}
		fmt.Fprintf(&b, "%d.%s", i%97, exts[r.IntN(len(exts))])
		out = append(out, b.String())
	}
	return out
}
