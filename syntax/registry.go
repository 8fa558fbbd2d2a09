package syntax

import (
	"errors"
	"fmt"
	"sort"
	"strings"
	"sync"

	sitter "github.com/smacker/go-tree-sitter"
	"github.com/smacker/go-tree-sitter/bash"
	"github.com/smacker/go-tree-sitter/c"
	"github.com/smacker/go-tree-sitter/cpp"
	"github.com/smacker/go-tree-sitter/css"
	"github.com/smacker/go-tree-sitter/golang"
	"github.com/smacker/go-tree-sitter/html"
	"github.com/smacker/go-tree-sitter/javascript"
	"github.com/smacker/go-tree-sitter/lua"
	mdblock "github.com/smacker/go-tree-sitter/markdown/tree-sitter-markdown"
	mdinline "github.com/smacker/go-tree-sitter/markdown/tree-sitter-markdown-inline"
	"github.com/smacker/go-tree-sitter/python"
	"github.com/smacker/go-tree-sitter/rust"
	"github.com/smacker/go-tree-sitter/toml"
	"github.com/smacker/go-tree-sitter/typescript/tsx"
	"github.com/smacker/go-tree-sitter/typescript/typescript"
	"github.com/smacker/go-tree-sitter/yaml"
)

// ErrUnknownLanguage is returned (wrapped, with the list of known names) for a
// language name that is not registered.
var ErrUnknownLanguage = errors.New("syntax: unknown language")

// Language is a registered grammar. Its parsers and its highlights query are
// shared by every goroutine; a Language is safe for concurrent use.
type Language struct {
	name string
	ts   *sitter.Language

	// plain parsers parse whole documents; ranged parsers carry included
	// ranges for injections and are never handed a whole-document parse,
	// because the binding cannot clear included ranges.
	plain, ranged parserPool

	// trimSpace is set for grammars whose nodes start at the whitespace
	// before their first character (the bundled lua grammar reports
	// "\nprint" for print); highlight spans skip that whitespace.
	trimSpace bool

	highlightsOnce sync.Once
	highlights     *compiledQuery
	highlightsErr  error
}

// Name returns the registry name, e.g. "go" or "markdown_inline".
func (l *Language) Name() string { return l.name }

// markdownInline is the grammar injected into every (inline) node of a
// markdown block tree; it is also a language in its own right.
const markdownInline = "markdown_inline"

var registry = func() map[string]*Language {
	grammars := map[string]func() *sitter.Language{
		"bash":         bash.GetLanguage,
		"c":            c.GetLanguage,
		"cpp":          cpp.GetLanguage,
		"css":          css.GetLanguage,
		"go":           golang.GetLanguage,
		"html":         html.GetLanguage,
		"javascript":   javascript.GetLanguage,
		"lua":          lua.GetLanguage,
		"markdown":     mdblock.GetLanguage,
		markdownInline: mdinline.GetLanguage,
		"python":       python.GetLanguage,
		"rust":         rust.GetLanguage,
		"toml":         toml.GetLanguage,
		"tsx":          tsx.GetLanguage,
		"typescript":   typescript.GetLanguage,
		"yaml":         yaml.GetLanguage,
	}
	m := make(map[string]*Language, len(grammars))
	for name, get := range grammars {
		ts := get()
		l := &Language{name: name, ts: ts, trimSpace: name == "lua"}
		l.plain.lang, l.ranged.lang = ts, ts
		m[name] = l
	}
	return m
}()

var sortedNames = func() []string {
	names := make([]string, 0, len(registry))
	for name := range registry {
		names = append(names, name)
	}
	sort.Strings(names)
	return names
}()

// Languages returns the registered language names, sorted.
func Languages() []string {
	return append([]string(nil), sortedNames...)
}

// Lookup returns the registered language called name. An unknown name fails
// with an error that matches ErrUnknownLanguage and lists the known names.
func Lookup(name string) (*Language, error) {
	if l, ok := registry[name]; ok {
		return l, nil
	}
	return nil, fmt.Errorf("%w %q (known: %s)", ErrUnknownLanguage, name, strings.Join(sortedNames, ", "))
}

// defaultInjections maps markdown fence tags to languages when a Request has
// no map of its own: every registered name maps to itself, plus the tags
// people commonly write instead.
var defaultInjections = func() map[string]string {
	m := map[string]string{
		"golang": "go", "rs": "rust", "py": "python", "python3": "python",
		"js": "javascript", "jsx": "javascript", "mjs": "javascript", "cjs": "javascript",
		"ts": "typescript", "sh": "bash", "shell": "bash", "zsh": "bash", "console": "bash",
		"h": "c", "c++": "cpp", "cc": "cpp", "cxx": "cpp", "hpp": "cpp",
		"yml": "yaml", "md": "markdown", "htm": "html", "xhtml": "html",
	}
	for name := range registry {
		if name != markdownInline {
			m[name] = name
		}
	}
	return m
}()
