package syntax

import (
	"bytes"
	"errors"
	"fmt"

	sitter "github.com/smacker/go-tree-sitter"
)

// ErrInvalidEdit is returned (wrapped) for an edit whose byte offsets are out
// of order or out of range, or for edits given without a prior tree.
var ErrInvalidEdit = errors.New("syntax: invalid edit")

// Point is a position in the text: a zero-based row and a byte column.
type Point struct{ Row, Column uint32 }

// Edit describes one change to the text that a prior tree was parsed from:
// the bytes [StartByte, OldEndByte) were replaced by text that now ends at
// NewEndByte. Several edits apply in order, each to the text left by the one
// before.
type Edit struct {
	StartByte, OldEndByte, NewEndByte    uint32
	StartPoint, OldEndPoint, NewEndPoint Point
}

func (e Edit) validate(newLen int) error {
	if e.OldEndByte < e.StartByte || e.NewEndByte < e.StartByte {
		return fmt.Errorf("%w: start %d, old end %d, new end %d", ErrInvalidEdit, e.StartByte, e.OldEndByte, e.NewEndByte)
	}
	if int64(e.NewEndByte) > int64(newLen) {
		return fmt.Errorf("%w: new end %d is past the source (%d bytes)", ErrInvalidEdit, e.NewEndByte, newLen)
	}
	return nil
}

func (e Edit) input() sitter.EditInput {
	return sitter.EditInput{
		StartIndex:  e.StartByte,
		OldEndIndex: e.OldEndByte,
		NewEndIndex: e.NewEndByte,
		StartPoint:  sitter.Point(e.StartPoint),
		OldEndPoint: sitter.Point(e.OldEndPoint),
		// The binding ignores this field (it sends OldEndPoint in its place);
		// passing the right value keeps us correct if it is ever fixed.
		NewEndPoint: sitter.Point(e.NewEndPoint),
	}
}

// diffEdit computes the single edit that turns old into new: everything
// between their common prefix and their common suffix was replaced. It
// reports false when the texts are equal.
func diffEdit(old, new []byte) (Edit, bool) {
	n := min(len(old), len(new))
	prefix := 0
	// Compare in 64-byte steps first: a typical keystroke leaves almost the
	// whole file as prefix or suffix.
	for prefix+64 <= n && bytes.Equal(old[prefix:prefix+64], new[prefix:prefix+64]) {
		prefix += 64
	}
	for prefix < n && old[prefix] == new[prefix] {
		prefix++
	}
	if prefix == len(old) && prefix == len(new) {
		return Edit{}, false
	}
	suffix := 0
	maxSuffix := n - prefix
	for suffix+64 <= maxSuffix && bytes.Equal(old[len(old)-suffix-64:len(old)-suffix], new[len(new)-suffix-64:len(new)-suffix]) {
		suffix += 64
	}
	for suffix < maxSuffix && old[len(old)-suffix-1] == new[len(new)-suffix-1] {
		suffix++
	}
	oldEnd, newEnd := len(old)-suffix, len(new)-suffix
	start := pointAt(old, prefix)
	return Edit{
		StartByte:   uint32(prefix),
		OldEndByte:  uint32(oldEnd),
		NewEndByte:  uint32(newEnd),
		StartPoint:  start,
		OldEndPoint: advance(start, old[prefix:oldEnd]),
		NewEndPoint: advance(start, new[prefix:newEnd]),
	}, true
}

// pointAt returns the row and byte column of offset in text.
func pointAt(text []byte, offset int) Point {
	return advance(Point{}, text[:offset])
}

// advance returns the point reached by writing text at p.
func advance(p Point, text []byte) Point {
	nl := bytes.Count(text, []byte{'\n'})
	if nl == 0 {
		return Point{Row: p.Row, Column: p.Column + uint32(len(text))}
	}
	last := bytes.LastIndexByte(text, '\n')
	return Point{Row: p.Row + uint32(nl), Column: uint32(len(text) - last - 1)}
}
