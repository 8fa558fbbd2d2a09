// Package grepjob is the grep kind: a streaming search of a tree (package
// grep) run as a job of the runtime, its matches carried across the bus in
// a form the main goroutine reads without the msgpack decoder's calls, or
// indexes without decoding at all (MatchBlock).
package grepjob

import (
	"fmt"

	"github.com/vmihailenco/msgpack/v5"

	"github.com/pmacs-go/pmacs-go/grep"
	"github.com/pmacs-go/pmacs-go/runtime"
)

// Kind is the grep kind. Its progress counts files searched; its progress
// detail is what the search left out so far (grep.SkipCounts).
var Kind = runtime.RegisterKind(runtime.KindSpec{
	Name:          "grep",
	Items:         matchesCodec{},
	Detail:        skippedCodec{},
	ProgressLabel: "files searched",
})

// Matches is a batch of a grep stream's matches, as Dispatch delivers them.
type Matches []grep.Match

func (m Matches) Len() int                                { return len(m) }
func (m Matches) Weight() int                             { return len(m) }
func (m Matches) Append(more runtime.Items) runtime.Items { return append(m, more.(Matches)...) }
func (m Matches) Cut(n int) (head, rest runtime.Items)    { return m[:n:n], m[n:] }

// Blocks is a batch of a grep stream's matches, as DispatchBlocks delivers
// them.
type Blocks []*MatchBlock

func (b Blocks) Len() int                                { return blocksLen(b) }
func (b Blocks) Weight() int                             { return blocksLen(b) }
func (b Blocks) Append(more runtime.Items) runtime.Items { return append(b, more.(Blocks)...) }
func (b Blocks) Cut(n int) (head, rest runtime.Items)    { return b.cut(n) }

// cut splits b after its first n matches, cutting a block in two where n
// ends inside it.
func (b Blocks) cut(n int) (head, rest runtime.Items) {
	var out Blocks
	for i, blk := range b {
		l := blk.Len()
		if l > n {
			out = append(out, blk.slice(0, n))
			tail := make(Blocks, 0, len(b)-i)
			tail = append(tail, blk.slice(n, l))
			return out, append(tail, b[i+1:]...)
		}
		out = append(out, blk)
		n -= l
		if n == 0 {
			return out, b[i+1:]
		}
	}
	return out, Blocks(nil)
}

// MatchesOf returns a batch's matches, for a stream started with Dispatch;
// nil for a batch of none.
func MatchesOf(b runtime.StreamBatch) []grep.Match {
	m, _ := b.Items.(Matches)
	return m
}

// BlocksOf returns a batch's match blocks, for a stream started with
// DispatchBlocks; nil for a batch of none.
func BlocksOf(b runtime.StreamBatch) []*MatchBlock {
	bs, _ := b.Items.(Blocks)
	return bs
}

// SkippedOf returns what the search had left out when the batch was
// taken, by reason; the closing batch's is the final count.
func SkippedOf(b runtime.StreamBatch) grep.SkipCounts {
	c, _ := b.Detail.(grep.SkipCounts)
	return c
}

// StreamSkipped returns what a running grep has left out so far, by reason,
// as last reported with its progress; false for unknown ids and
// request/reply jobs.
func StreamSkipped(rt *runtime.Runtime, id runtime.JobID) (grep.SkipCounts, bool) {
	d, ok := rt.StreamDetail(id)
	if !ok {
		return grep.SkipCounts{}, false
	}
	c, _ := d.(grep.SkipCounts)
	return c, true
}

type matchesCodec struct{}

func (matchesCodec) EncodeItems(e *msgpack.Encoder, items runtime.Items) error {
	return encodeMatches(e, items.(Matches))
}

func (matchesCodec) DecodeItems(p []byte, d *msgpack.Decoder) (runtime.Items, error) {
	if ms, ok := decodeMatchesFast(p); ok {
		return ms, nil
	}
	ms, err := decodeMatches(d)
	return Matches(ms), err
}

// blocksCodec decodes the batches of a stream started with DispatchBlocks;
// the worker encodes them as matchesCodec does.
type blocksCodec struct{}

func (blocksCodec) EncodeItems(e *msgpack.Encoder, items runtime.Items) error {
	return matchesCodec{}.EncodeItems(e, items)
}

func (blocksCodec) DecodeItems(p []byte, d *msgpack.Decoder) (runtime.Items, error) {
	if blk, ok := indexMatches(p); ok {
		return Blocks{blk}, nil
	}
	// Not in the form the encoder writes: the general decoder decides,
	// and the stream still takes blocks.
	ms, err := decodeMatches(d)
	if err != nil {
		return nil, err
	}
	return Blocks{NewMatchBlock(ms)}, nil
}

type skippedCodec struct{}

func (skippedCodec) EncodeValue(e *msgpack.Encoder, v any) error {
	c := v.(grep.SkipCounts)
	return encodeSkipped(e, &c)
}

func (skippedCodec) DecodeValue(d *msgpack.Decoder) (any, error) {
	c, err := decodeSkipped(d)
	if err != nil {
		return nil, err
	}
	return *c, nil
}

// skippedFields is how many counts a grep progress reply carries.
const skippedFields = 10

func skippedSlots(c *grep.SkipCounts) [skippedFields]*int64 {
	return [skippedFields]*int64{
		&c.IgnoredFiles, &c.IgnoredDirs, &c.HiddenFiles, &c.HiddenDirs, &c.NamedDirs,
		&c.UnreadableDirs, &c.Other, &c.BinaryFiles, &c.OversizeFiles, &c.UnreadableFiles,
	}
}

func encodeSkipped(e *msgpack.Encoder, c *grep.SkipCounts) error {
	if err := e.EncodeArrayLen(skippedFields); err != nil {
		return err
	}
	for _, p := range skippedSlots(c) {
		if err := e.EncodeInt(*p); err != nil {
			return err
		}
	}
	return nil
}

func decodeSkipped(d *msgpack.Decoder) (*grep.SkipCounts, error) {
	n, err := d.DecodeArrayLen()
	if err != nil {
		return nil, err
	}
	if n != skippedFields {
		return nil, fmt.Errorf("skip counts: %d fields, want %d", n, skippedFields)
	}
	c := new(grep.SkipCounts)
	for _, p := range skippedSlots(c) {
		if *p, err = d.DecodeInt64(); err != nil {
			return nil, err
		}
	}
	return c, nil
}
