package bus

import (
	"testing"
)

// FuzzDecode feeds arbitrary bytes to the decoder of a registered topic: it
// must return a value or an error, never panic (issue 2, bus: fuzz test).
// The seed corpus lives in testdata/fuzz/FuzzDecode.
func FuzzDecode(f *testing.F) {
	r := newTestRegistry(f)
	good, err := r.Encode("ping", ping{ID: 1 << 40, Note: "seed"})
	if err != nil {
		f.Fatal(err)
	}
	f.Add(good.Payload)
	f.Add([]byte{})
	f.Add([]byte{0xc1})
	f.Add([]byte{0xdf, 0xff, 0xff, 0xff, 0xff})
	f.Fuzz(func(t *testing.T, payload []byte) {
		var p ping
		_ = r.Decode(Envelope{Topic: "ping", Payload: payload}, &p)
		_, _ = r.DecodeNew(Envelope{Topic: "pong", Payload: payload})
	})
}
