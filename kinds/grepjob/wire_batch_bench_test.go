package grepjob

import (
	"bytes"
	"fmt"
	"testing"

	"github.com/vmihailenco/msgpack/v5"

	"github.com/pmacs-go/pmacs-go/grep"
)

// The main goroutine decodes every grep batch a live search sends: 2,048
// matches a frame at the editor's pace, in runs of one file each, as grep
// sends them (here 16 files of 128 matches).
func BenchmarkWireDecodeGrepBatch(b *testing.B) {
	ms := make([]grep.Match, 0, 2048)
	for f := range 16 {
		for l := range 128 {
			m := sampleMatch
			m.File = fmt.Sprintf("src/net/http/internal/file%02d.go", f)
			m.Line = uint32(l + 1)
			ms = append(ms, m)
		}
	}
	payload := encodeBatch(b, ms)
	check := func(b *testing.B, out Matches) {
		if len(out) != len(ms) || out[2047].File != ms[2047].File {
			b.Fatal("decoded batch differs")
		}
	}
	// "general" is the msgpack decoder every batch can take; "fast" is the
	// path the codec takes for the batches the encoder writes.
	b.Run("general", func(b *testing.B) {
		b.ReportAllocs()
		b.SetBytes(int64(len(payload)))
		for b.Loop() {
			out, err := decodeMatches(msgpack.NewDecoder(bytes.NewReader(payload)))
			if err != nil {
				b.Fatal(err)
			}
			check(b, out)
		}
	})
	// "blocks" is what the codec does for a stream started with DispatchBlocks:
	// check the batch and note where each match starts, decoding none.
	b.Run("blocks", func(b *testing.B) {
		b.ReportAllocs()
		b.SetBytes(int64(len(payload)))
		for b.Loop() {
			blk, ok := indexMatches(payload)
			if !ok || blk.Len() != len(ms) {
				b.Fatal("the batch was not indexed")
			}
		}
	})
	b.Run("fast", func(b *testing.B) {
		b.ReportAllocs()
		b.SetBytes(int64(len(payload)))
		for b.Loop() {
			out, ok := decodeMatchesFast(payload)
			if !ok {
				b.Fatal("the fast path declined the encoder's batch")
			}
			check(b, out)
		}
	})
}

// matchReflect is grep.Match's shape without the hand-written methods, to
// measure what reflection costs.
type matchReflect struct {
	File       string
	Line       uint32
	Text       string
	MatchStart uint32
	MatchEnd   uint32
	Spans      [][2]uint32
	Kind       uint8
}

// BenchmarkWireMatchReflection measures msgpack's reflection path for one
// 7-field match, Marshal plus Unmarshal.
func BenchmarkWireMatchReflection(b *testing.B) {
	m := matchReflect{File: sampleMatch.File, Line: sampleMatch.Line, Text: sampleMatch.Text, MatchEnd: 4, Spans: sampleMatch.Spans, Kind: 1}
	b.ReportAllocs()
	for b.Loop() {
		data, err := msgpack.Marshal(&m)
		if err != nil {
			b.Fatal(err)
		}
		var out matchReflect
		if err := msgpack.Unmarshal(data, &out); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkWireMatchCustom measures the hand-written path for the same
// match, a batch of one encoded by the codec and decoded as Tick does.
func BenchmarkWireMatchCustom(b *testing.B) {
	ms := Matches{sampleMatch}
	var buf bytes.Buffer
	e := msgpack.NewEncoder(&buf)
	b.ReportAllocs()
	for b.Loop() {
		buf.Reset()
		if err := (matchesCodec{}).EncodeItems(e, ms); err != nil {
			b.Fatal(err)
		}
		p := buf.Bytes()
		if _, err := (matchesCodec{}).DecodeItems(p, msgpack.NewDecoder(bytes.NewReader(p))); err != nil {
			b.Fatal(err)
		}
	}
}
