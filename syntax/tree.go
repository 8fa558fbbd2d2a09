package syntax

import (
	"errors"
	"time"

	sitter "github.com/smacker/go-tree-sitter"
)

// ErrClosedTree is returned (wrapped) when a closed tree is used.
var ErrClosedTree = errors.New("syntax: tree is closed")

// Tree is the result of a parse: the root tree plus the trees injected into
// parts of it. A Tree is not safe for concurrent use, even for reading (see
// the package documentation); hand another goroutine a Clone instead.
type Tree struct {
	lang       *Language
	source     []byte
	ts         *sitter.Tree
	injections []Injection
	duration   time.Duration
	closed     bool
	// startRow and endRow bound an injected tree's text, so Highlights can
	// skip injections outside the requested rows without touching them.
	startRow, endRow uint32
	// lines indexes the source's line starts; built by the first
	// Highlights call and shared with clones (it is never modified).
	lines lineIndex
	// last caches the previous Highlights result: an editor redraws the
	// same window of the same tree every frame until the text changes.
	last *cachedHighlights
}

type cachedHighlights struct {
	startRow, endRow uint32
	spans            []Span
}

// Injection is a tree parsed with another grammar over part of the document:
// a markdown inline node, or the body of a fenced code block. Its node
// positions are positions in the whole document.
type Injection struct {
	Language           string
	StartByte, EndByte uint32
	Tree               *Tree
}

// Language returns the name of the language the tree was parsed with.
func (t *Tree) Language() string { return t.lang.name }

// Source returns the text the tree was parsed from (for an injected tree, the
// whole document). It is shared with clones and must not be modified.
func (t *Tree) Source() []byte { return t.source }

// Duration returns how long parsing took, injected trees included; the time
// spent waiting for a parser or copying the request is not counted.
func (t *Tree) Duration() time.Duration { return t.duration }

// RootType returns the node type of the root, e.g. "source_file"; "" once
// the tree is closed.
func (t *Tree) RootType() string {
	if t.closed {
		return ""
	}
	return t.ts.RootNode().Type()
}

// SExpr returns the root tree as an s-expression (injected trees are not
// included); "" once the tree is closed.
func (t *Tree) SExpr() string {
	if t.closed {
		return ""
	}
	return t.ts.RootNode().String()
}

// HasError reports whether the root tree or any injected tree contains a
// syntax error or a missing node.
func (t *Tree) HasError() bool {
	if t.closed {
		return false
	}
	if t.ts.RootNode().HasError() {
		return true
	}
	for _, inj := range t.injections {
		if inj.Tree.HasError() {
			return true
		}
	}
	return false
}

// Injections returns the injected trees in document order. The trees belong
// to t: they are closed with it and cloned with it.
func (t *Tree) Injections() []Injection {
	return append([]Injection(nil), t.injections...)
}

// Clone returns an independent copy that another goroutine may own. It
// shares the tree-sitter nodes by reference count (O(1) per tree) and never
// touches the binding's node cache of t, so the owner of t may keep reading
// t while the clone is used elsewhere. Clone must itself be called by the
// goroutine that owns t.
func (t *Tree) Clone() *Tree {
	c := *t
	c.last = nil
	if t.closed {
		c.injections = nil
		return &c
	}
	c.ts = t.ts.Copy()
	if len(t.injections) > 0 {
		c.injections = make([]Injection, len(t.injections))
		for i, inj := range t.injections {
			inj.Tree = inj.Tree.Clone()
			c.injections[i] = inj
		}
	}
	return &c
}

// Close releases the tree's C memory now instead of at garbage collection.
// Closing twice is harmless; a closed tree reports empty results.
func (t *Tree) Close() {
	if t.closed {
		return
	}
	t.closed = true
	t.ts.Close()
	for _, inj := range t.injections {
		inj.Tree.Close()
	}
}
