package lsp

import (
	"fmt"
	"regexp"
	"strings"
	"unicode/utf8"
)

// Glob is a compiled LSP glob pattern (the globPattern of a file watcher,
// LSP 3.17): `/` separates segments, `*` matches zero or more characters
// of one segment, `?` one character of one segment, `**` any number of
// whole segments (none included), `{a,b}` either alternative (nested
// groups allowed), `[abc]` and `[a-z]` one character of a class and `[!a]`
// one character not in it (never `/`). Any other character stands for
// itself. A pattern is compiled once, when the server registers it, into
// an RE2 program: matching a path costs time linear in its length,
// whatever the pattern, so a hostile server cannot stall the main
// goroutine with one.
type Glob struct {
	src string
	re  *regexp.Regexp
}

// maxGlobBytes bounds one glob pattern; registerOptions as a whole are
// bounded too (maxRegisterOptions).
const maxGlobBytes = 4096

// maxGlobDepth bounds the nesting of brace groups.
const maxGlobDepth = 32

// CompileGlob compiles an LSP glob pattern. An empty pattern, an unclosed
// `{` or `[`, a class with a range backwards, or a pattern over 4 KiB or
// nested over 32 groups deep is an error saying which.
func CompileGlob(pattern string) (*Glob, error) {
	if pattern == "" {
		return nil, fmt.Errorf("lsp: glob pattern is empty")
	}
	if len(pattern) > maxGlobBytes {
		return nil, fmt.Errorf("lsp: glob pattern %.40q... is over %d bytes", pattern, maxGlobBytes)
	}
	var b strings.Builder
	b.WriteString(`^`)
	depth := 0
	for i := 0; i < len(pattern); {
		c := pattern[i]
		switch c {
		case '*':
			if i+1 < len(pattern) && pattern[i+1] == '*' {
				j := i + 2
				for j < len(pattern) && pattern[j] == '*' {
					j++
				}
				whole := (i == 0 || pattern[i-1] == '/' || pattern[i-1] == '{' || pattern[i-1] == ',') &&
					(j == len(pattern) || pattern[j] == '/' || pattern[j] == '}' || pattern[j] == ',')
				switch {
				case whole && j < len(pattern) && pattern[j] == '/':
					// "**/": any number of leading segments, none included.
					b.WriteString(`(?:[^/]*/)*`)
					j++
				case whole:
					b.WriteString(`.*`)
				default:
					// "a**b" is no segment wildcard: as one "*".
					b.WriteString(`[^/]*`)
				}
				i = j
				continue
			}
			b.WriteString(`[^/]*`)
		case '?':
			b.WriteString(`[^/]`)
		case '{':
			depth++
			if depth > maxGlobDepth {
				return nil, fmt.Errorf("lsp: glob pattern %q nests groups over %d deep", pattern, maxGlobDepth)
			}
			b.WriteString(`(?:`)
		case '}':
			if depth == 0 {
				b.WriteString(`\}`)
				break
			}
			depth--
			b.WriteString(`)`)
		case ',':
			if depth == 0 {
				b.WriteString(`,`)
				break
			}
			b.WriteString(`|`)
		case '[':
			n, class, err := globClass(pattern, i)
			if err != nil {
				return nil, err
			}
			b.WriteString(class)
			i = n
			continue
		default:
			_, n := utf8.DecodeRuneInString(pattern[i:])
			b.WriteString(regexp.QuoteMeta(pattern[i : i+n]))
			i += n
			continue
		}
		i++
	}
	if depth > 0 {
		return nil, fmt.Errorf("lsp: glob pattern %q has a { that is not closed", pattern)
	}
	b.WriteString(`$`)
	re, err := regexp.Compile(b.String())
	if err != nil {
		return nil, fmt.Errorf("lsp: glob pattern %q: %w", pattern, err)
	}
	return &Glob{src: pattern, re: re}, nil
}

// globClass translates the class that opens at pattern[i] ('['); it
// returns the index past its ']' and the class as a regexp. A ']' first in
// the class (after '!' for a negated one) is one of its characters; a '-'
// first or last is itself. A class never matches '/', whatever it lists.
func globClass(pattern string, i int) (int, string, error) {
	j := i + 1
	neg := j < len(pattern) && pattern[j] == '!'
	if neg {
		j++
	}
	start := j
	if j < len(pattern) && pattern[j] == ']' {
		j++
	}
	for j < len(pattern) && pattern[j] != ']' {
		j++
	}
	if j >= len(pattern) {
		return 0, "", fmt.Errorf("lsp: glob pattern %q has a [ that is not closed", pattern)
	}
	body := []rune(pattern[start:j])
	var b strings.Builder
	b.WriteString(`[`)
	if neg {
		b.WriteString(`^/`)
	}
	item := func(lo, hi rune) {
		b.WriteString(regexp.QuoteMeta(string(lo)))
		if hi != lo {
			b.WriteByte('-')
			b.WriteString(regexp.QuoteMeta(string(hi)))
		}
	}
	listed := false
	for k := 0; k < len(body); k++ {
		lo, hi := body[k], body[k]
		if k+2 < len(body) && body[k+1] == '-' {
			hi = body[k+2]
			k += 2
		}
		if lo > hi {
			return 0, "", fmt.Errorf("lsp: glob pattern %q has a class range %c-%c that runs backwards", pattern, lo, hi)
		}
		switch {
		case neg:
			item(lo, hi)
		case lo == '/' && hi == '/':
			continue
		case lo <= '/' && '/' <= hi:
			if lo < '/' {
				item(lo, '/'-1)
			}
			if hi > '/' {
				item('/'+1, hi)
			}
		default:
			item(lo, hi)
		}
		listed = true
	}
	b.WriteString(`]`)
	if !listed && !neg {
		// "[/]": a class of nothing matches nothing.
		return j + 1, `[^\x00-\x{10FFFF}]`, nil
	}
	return j + 1, b.String(), nil
}

// Match reports whether path (with '/' separators) matches the whole
// pattern.
func (g *Glob) Match(path string) bool { return g.re.MatchString(path) }

// String returns the pattern as it was given.
func (g *Glob) String() string { return g.src }
