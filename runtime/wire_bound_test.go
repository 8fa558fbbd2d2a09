package runtime

import (
	goruntime "runtime"
	"testing"

	"github.com/stretchr/testify/require"
)

// An external job's value whose length prefixes claim billions of items, or
// that nests past any sane depth, is refused as malformed instead of making
// the main goroutine allocate gigabytes or overflow its stack (found by
// FuzzReplyDecode: a 12-byte reply whose nested array claimed 2.5e9 items
// crashed the process with out of memory).
func TestReplyValueWithHostileLengthsIsRefused(t *testing.T) {
	reg := wireRegistry(t)
	for name, payload := range map[string][]byte{
		"fuzz finding":    []byte("\x930\v\x920\xdd\x95\x97\x8a\xbeuP"),
		"nested array32":  {0x93, 0x01, 0x0b, 0x91, 0xdd, 0xff, 0xff, 0xff, 0xff},
		"nested map32":    {0x93, 0x01, 0x0b, 0x91, 0xdf, 0xff, 0xff, 0xff, 0xff},
		"top-level map32": {0x93, 0x01, 0x0b, 0xdf, 0x7f, 0xff, 0xff, 0xff},
		"deep nesting":    append([]byte{0x93, 0x01, 0x0b}, repeatByte(0x91, 10000)...),
		// FuzzReplyDecode: DecodeInterface allocated a bin32's claimed
		// 2.7 GB before reading it.
		"fuzz finding bin32": []byte("\x930\v\x92\x970\xc6\xa0\x30\x32\x30000"),
		"nested bin32":       {0x93, 0x01, 0x0b, 0x91, 0xc6, 0x7f, 0xff, 0xff, 0xff},
		"nested ext32":       {0x93, 0x01, 0x0b, 0x91, 0xc9, 0x7f, 0xff, 0xff, 0xff, 0x01},
		"nested str32":       {0x93, 0x01, 0x0b, 0x91, 0xdb, 0x7f, 0xff, 0xff, 0xff},
	} {
		var before, after goruntime.MemStats
		goruntime.ReadMemStats(&before)
		var r reply
		require.Error(t, reg.Decode(busEnvelope(payload), &r), name)
		goruntime.ReadMemStats(&after)
		require.Less(t, after.TotalAlloc-before.TotalAlloc, uint64(16<<20), "%s allocated %d MiB", name, (after.TotalAlloc-before.TotalAlloc)>>20)
	}
	// Values within the bounds still decode as DecodeInterface would.
	env, err := reg.Encode(replyTopic, &reply{Job: 1, Kind: replyValue, Value: map[string]any{"a": []any{int64(1), "x", map[string]any{"b": nil}}}})
	require.NoError(t, err)
	var r reply
	require.NoError(t, reg.Decode(env, &r))
	require.Equal(t, map[string]any{"a": []any{int64(1), "x", map[string]any{"b": nil}}}, r.Value)
}

func repeatByte(b byte, n int) []byte {
	out := make([]byte, n)
	for i := range out {
		out[i] = b
	}
	return out
}
