package runtime

import (
	"math"
	"sync"
)

// fixedReplyCap fits a fixed-shape reply without a message: a 4-field array
// header, three uints of up to 9 bytes, and slack.
const fixedReplyCap = 32

// fixedBufs recycles the payloads of the integer-only fixed replies (every
// job's terminal reply but a failure's): the worker takes one to encode into,
// the main goroutine gives it back once the reply is applied, so a job's
// reply costs no allocation in the steady state. Pointers to arrays, so
// neither Get nor Put allocates.
var fixedBufs = sync.Pool{New: func() any { return new([fixedReplyCap]byte) }}

// recycleFixed gives p back to fixedBufs if it is the payload of an
// integer-only fixed reply (unit, cancelled, closed, sum, progress) in a
// buffer of fixedReplyCap. Decoding such a reply keeps no reference to its
// bytes, so once it is applied nothing else reads them; the replies whose
// bytes may be kept (items, results in a kind's form) never qualify.
func recycleFixed(p []byte) {
	if fixedReusable(p) {
		fixedBufs.Put((*[fixedReplyCap]byte)(p[:fixedReplyCap]))
	}
}

// fixedReusable reports whether recycleFixed takes p.
func fixedReusable(p []byte) bool {
	if cap(p) != fixedReplyCap || len(p) < 3 {
		return false
	}
	var at int // where the kind is: after the header and the job's uint
	switch p[1] {
	case 0xcc:
		at = 3
	case 0xcd:
		at = 4
	case 0xce:
		at = 6
	case 0xcf:
		at = 10
	default:
		if p[1] > math.MaxInt8 {
			return false
		}
		at = 2
	}
	if at >= len(p) {
		return false
	}
	k := replyKind(p[at])
	return p[0] == 0x92 && (k == replyUnit || k == replyCancelled || k == replyClosed) ||
		p[0] == 0x93 && (k == replySum || k == replyProgress)
}

// appendFixed appends the MessagePack encoding of the replies that have no
// variable-size payload (the terminal replies of most jobs, and progress)
// and reports true; for the others it reports false and appends nothing.
// The bytes are exactly what EncodeMsgpack writes (TestAppendFixedMatchesEncoder),
// so the receiving side cannot tell the two paths apart.
func (r *reply) appendFixed(b []byte) ([]byte, bool) {
	switch r.Kind {
	case replyUnit, replyCancelled, replyClosed:
		b = append(b, 0x92)
		b = appendUint(b, uint64(r.Job))
		return appendUint(b, uint64(r.Kind)), true
	case replySum, replyProgress:
		if r.detail != nil {
			return b, false // a progress detail takes the encoder's path
		}
		b = append(b, 0x93)
		b = appendUint(b, uint64(r.Job))
		b = appendUint(b, uint64(r.Kind))
		return appendUint(b, r.N), true
	case replyFailed:
		b = append(b, 0x94)
		b = appendUint(b, uint64(r.Job))
		b = appendUint(b, uint64(r.Kind))
		b = appendString(b, r.Msg)
		return appendString(b, r.Code), true
	}
	return b, false
}

// appendUint writes n in its shortest MessagePack form, as
// msgpack.Encoder.EncodeUint does.
func appendUint(b []byte, n uint64) []byte {
	switch {
	case n <= math.MaxInt8:
		return append(b, byte(n))
	case n <= math.MaxUint8:
		return append(b, 0xcc, byte(n))
	case n <= math.MaxUint16:
		return append(b, 0xcd, byte(n>>8), byte(n))
	case n <= math.MaxUint32:
		return append(b, 0xce, byte(n>>24), byte(n>>16), byte(n>>8), byte(n))
	}
	return append(b, 0xcf, byte(n>>56), byte(n>>48), byte(n>>40), byte(n>>32),
		byte(n>>24), byte(n>>16), byte(n>>8), byte(n))
}

// appendString writes s with the shortest string header, as
// msgpack.Encoder.EncodeString does.
func appendString(b []byte, s string) []byte {
	n := len(s)
	switch {
	case n < 32:
		b = append(b, 0xa0|byte(n))
	case n <= math.MaxUint8:
		b = append(b, 0xd9, byte(n))
	case n <= math.MaxUint16:
		b = append(b, 0xda, byte(n>>8), byte(n))
	default:
		b = append(b, 0xdb, byte(n>>24), byte(n>>16), byte(n>>8), byte(n))
	}
	return append(b, s...)
}
