package syntax

import (
	"context"
	"errors"
	"fmt"
	"time"

	sitter "github.com/smacker/go-tree-sitter"
)

// Errors returned (wrapped) by Parse besides ErrUnknownLanguage,
// ErrInvalidEdit and ErrClosedTree. A cancelled parse returns an error that
// matches the context's error (context.Canceled or DeadlineExceeded).
var (
	ErrNilSource        = errors.New("syntax: nil source")
	ErrLanguageMismatch = errors.New("syntax: prior tree has another language")
)

// Request is one parse.
type Request struct {
	// Source is the text to parse. Parse copies it, so the caller may reuse
	// the slice afterwards. Nil fails with ErrNilSource; empty is valid.
	Source []byte
	// Language is a registered name (see Languages).
	Language string
	// Prior, if set, is the tree of the previous version of the text; the
	// parse reuses its unchanged parts. Prior is not modified.
	Prior *Tree
	// Edits turn Prior's text into Source, in order. With Prior set and no
	// edits, Parse computes the single edit from the common prefix and
	// suffix of the two texts.
	Edits []Edit
	// Injections maps a markdown fence tag to the language its body is
	// parsed with ("lua" -> "lua"). Nil selects a default map in which every
	// registered name maps to itself plus common aliases ("py", "sh", ...);
	// an empty map turns fence injections off.
	Injections map[string]string
}

// Parse parses req on the calling goroutine with a pooled parser.
//
// Cancelling ctx aborts a running parse, not only one yet to start: Parse
// then returns an error matching ctx's error, and the parser is reset before
// anyone reuses it. A parse that finishes before it notices the cancellation
// returns its tree; the caller decides whether a late cancel discards it.
// Parse is safe to call from many goroutines at once.
func Parse(ctx context.Context, req Request) (*Tree, error) {
	if req.Source == nil {
		return nil, ErrNilSource
	}
	lang, err := Lookup(req.Language)
	if err != nil {
		return nil, err
	}
	aliases := req.Injections
	if aliases == nil {
		aliases = defaultInjections
	} else {
		for tag, name := range aliases {
			if _, err := Lookup(name); err != nil {
				return nil, fmt.Errorf("syntax: injection %q: %w", tag, err)
			}
		}
	}
	old, err := editedPrior(req, lang)
	if err != nil {
		return nil, err
	}
	if old != nil {
		// The copy only lives for this parse; the new tree holds its own
		// references to whatever nodes it reuses.
		defer old.Close()
	}

	source := append([]byte(nil), req.Source...)
	t := &Tree{lang: lang, source: source}
	p := lang.plain.get()
	start := time.Now()
	t.ts, err = p.run(ctx, func(ctx context.Context) (*sitter.Tree, error) {
		return p.p.ParseCtx(ctx, old, source)
	})
	t.duration = time.Since(start)
	lang.plain.put(p)
	if err != nil {
		return nil, fmt.Errorf("syntax: parse %s (%d bytes): %w", lang.name, len(source), err)
	}
	t.endRow = t.ts.RootNode().EndPoint().Row

	if lang.name == "markdown" {
		if err := injectMarkdown(ctx, t, aliases); err != nil {
			t.Close()
			return nil, fmt.Errorf("syntax: parse markdown injections: %w", err)
		}
	}
	return t, nil
}

// editedPrior returns a private copy of req.Prior's tree with req's edits
// (or the computed diff) applied, or nil for a fresh parse.
func editedPrior(req Request, lang *Language) (*sitter.Tree, error) {
	prior := req.Prior
	if prior == nil {
		if len(req.Edits) > 0 {
			return nil, fmt.Errorf("%w: %d edits without a prior tree", ErrInvalidEdit, len(req.Edits))
		}
		return nil, nil
	}
	if prior.closed {
		return nil, fmt.Errorf("syntax: prior tree: %w", ErrClosedTree)
	}
	if prior.lang != lang {
		return nil, fmt.Errorf("%w: prior is %s, request is %s", ErrLanguageMismatch, prior.lang.name, lang.name)
	}
	edits := req.Edits
	if len(edits) == 0 {
		e, changed := diffEdit(prior.source, req.Source)
		if changed {
			edits = []Edit{e}
		}
	}
	for i, e := range edits {
		if err := e.validate(len(req.Source)); err != nil {
			return nil, fmt.Errorf("edit %d: %w", i, err)
		}
	}
	// Editing a copy leaves Prior intact: tree-sitter copies shared nodes on
	// write, so Prior's owner never sees this edit.
	old := prior.ts.Copy()
	for _, e := range edits {
		old.Edit(e.input())
	}
	return old, nil
}
