package runtime

import (
	"fmt"
	"testing"

	"github.com/pmacs-go/pmacs-go/grep"
)

// The main goroutine decodes every grep batch a live search sends: 2,048
// matches a frame at the editor's pace, in runs of one file each, as grep
// sends them (here 16 files of 128 matches).
func BenchmarkWireDecodeGrepBatch(b *testing.B) {
	reg := wireRegistry(b)
	ms := make([]grep.Match, 0, 2048)
	for f := range 16 {
		for l := range 128 {
			m := sampleMatch
			m.File = fmt.Sprintf("src/net/http/internal/file%02d.go", f)
			m.Line = uint32(l + 1)
			ms = append(ms, m)
		}
	}
	env, err := reg.Encode(replyTopic, &reply{Job: 1, Kind: replyMatches, Matches: ms})
	if err != nil {
		b.Fatal(err)
	}
	check := func(b *testing.B, out *reply) {
		if len(out.Matches) != len(ms) || out.Matches[2047].File != ms[2047].File {
			b.Fatal("decoded batch differs")
		}
	}
	// "general" is the msgpack decoder every reply can take; "fast" is the
	// path Tick takes for the batches the encoder writes.
	b.Run("general", func(b *testing.B) {
		b.ReportAllocs()
		b.SetBytes(int64(len(env.Payload)))
		for b.Loop() {
			var out reply
			if err := reg.Decode(env, &out); err != nil {
				b.Fatal(err)
			}
			check(b, &out)
		}
	})
	// "blocks" is what Tick does for a stream dispatched with MatchBlocks:
	// check the batch and note where each match starts, decoding none.
	b.Run("blocks", func(b *testing.B) {
		b.ReportAllocs()
		b.SetBytes(int64(len(env.Payload)))
		for b.Loop() {
			_, blk, ok := indexMatches(env.Payload)
			if !ok || blk.Len() != len(ms) {
				b.Fatal("the batch was not indexed")
			}
		}
	})
	b.Run("fast", func(b *testing.B) {
		b.ReportAllocs()
		b.SetBytes(int64(len(env.Payload)))
		for b.Loop() {
			var out reply
			if !decodeMatchesFast(env.Payload, &out) {
				b.Fatal("the fast path declined the encoder's batch")
			}
			check(b, &out)
		}
	})
}
