package fuzzy

import (
	"bytes"
	"fmt"
	"slices"
)

var indexByte = bytes.IndexByte

// Store is a compact list of candidates: all texts in one byte slice with an end offset and
// a 64-bit presence mask per candidate, so a million paths cost their bytes plus 16 bytes
// each and no pointers for the garbage collector to trace. A candidate keeps its index for
// the life of the store; Remove only hides it, so indices held by earlier results stay
// valid. The zero Store is empty and ready to use.
//
// A Store is not safe for concurrent mutation: Add and Remove must not run at the same time
// as each other or as a Search over the store. Any number of Searches may read it at once.
type Store struct {
	data    []byte
	ends    []int
	masks   []uint64
	dead    []uint64 // bitset of removed indices; nil until the first Remove
	removed int
}

// NewStore returns a store holding items in order (item i at index i).
func NewStore(items []string) *Store {
	size := 0
	for _, it := range items {
		size += len(it)
	}
	s := &Store{
		data:  make([]byte, 0, size),
		ends:  make([]int, 0, len(items)),
		masks: make([]uint64, 0, len(items)),
	}
	for _, it := range items {
		s.Add(it)
	}
	return s
}

// Add appends item and returns its index.
func (s *Store) Add(item string) int {
	s.data = append(s.data, item...)
	return s.commit(len(item))
}

// AddBytes appends a copy of item and returns its index.
func (s *Store) AddBytes(item []byte) int {
	s.data = append(s.data, item...)
	return s.commit(len(item))
}

func (s *Store) commit(n int) int {
	s.ends = append(s.ends, len(s.data))
	s.masks = append(s.masks, foldedMask(s.data[len(s.data)-n:]))
	return len(s.ends) - 1
}

// AddLines appends every line of data (split at '\n'; a final line needs no newline; an
// empty data adds nothing) and returns the index of the first one. It is the fast way to
// load a list read from a file or a command's output.
func (s *Store) AddLines(data []byte) int {
	first := len(s.ends)
	if len(data) == 0 {
		return first
	}
	n := bytes.Count(data, []byte{'\n'})
	if data[len(data)-1] != '\n' {
		n++
	}
	s.ends = slices.Grow(s.ends, n)
	s.masks = slices.Grow(s.masks, n)
	s.data = slices.Grow(s.data, len(data)-n+1)
	for len(data) > 0 {
		line := data
		if i := bytes.IndexByte(data, '\n'); i >= 0 {
			line, data = data[:i], data[i+1:]
		} else {
			data = nil
		}
		s.data = append(s.data, line...)
		s.ends = append(s.ends, len(s.data))
		s.masks = append(s.masks, foldedMask(line))
	}
	return first
}

// Remove hides the candidate at index i from every later search. Removing an index twice
// is a no-op; an index out of range is an error.
func (s *Store) Remove(i int) error {
	if i < 0 || i >= len(s.ends) {
		return fmt.Errorf("%w: remove index %d", ErrIndexRange, i)
	}
	if s.dead == nil {
		s.dead = make([]uint64, (len(s.ends)+63)/64)
	}
	for len(s.dead) <= i/64 {
		s.dead = append(s.dead, 0)
	}
	if s.dead[i/64]&(1<<(i%64)) == 0 {
		s.dead[i/64] |= 1 << (i % 64)
		s.removed++
	}
	return nil
}

// Removed reports whether index i was removed (false for an index out of range).
func (s *Store) Removed(i int) bool {
	return i >= 0 && i/64 < len(s.dead) && s.dead[i/64]&(1<<(i%64)) != 0
}

// Len returns the number of indices handed out, removed ones included.
func (s *Store) Len() int { return len(s.ends) }

// Live returns the number of candidates not removed.
func (s *Store) Live() int { return len(s.ends) - s.removed }

// Item returns the text of candidate i, or "" for an index out of range.
func (s *Store) Item(i int) string {
	if i < 0 || i >= len(s.ends) {
		return ""
	}
	return string(s.bytes(i))
}

// Text returns the text of candidate i without copying it; the caller must not modify it.
// It returns nil for an index out of range.
func (s *Store) Text(i int) []byte {
	if i < 0 || i >= len(s.ends) {
		return nil
	}
	return s.bytes(i)
}

// Bytes returns the total size of the candidates' texts.
func (s *Store) Bytes() int { return len(s.data) }

func (s *Store) bytes(i int) []byte {
	start := 0
	if i > 0 {
		start = s.ends[i-1]
	}
	return s.data[start:s.ends[i]:s.ends[i]]
}
