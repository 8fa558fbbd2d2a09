package runtime

import (
	"fmt"

	"github.com/pmacs-go/pmacs-go/fsops"
	"github.com/pmacs-go/pmacs-go/grep"
	"github.com/pmacs-go/pmacs-go/proc"

	"github.com/vmihailenco/msgpack/v5"
	"github.com/vmihailenco/msgpack/v5/msgpcode"
)

// replyTopic is the one bus topic every worker reply travels on; the reply's
// kind says what it carries.
const replyTopic = "runtime.reply"

type replyKind uint8

const (
	replyUnit      replyKind = iota + 1 // completed, no payload
	replySum                            // completed with N
	replyCancelled                      // observed cancellation
	replyFailed                         // Msg, Code
	replyInts                           // stream items: Ints
	replyMatches                        // stream items: Matches
	replyClosed                         // stream completed
	replyParse                          // parse completed; N = duration ns, tree in the handoff
	replyListing                        // read_dir completed
	replyEntry                          // stat completed
	replyValue                          // external job completed with Value
	replyProgress                       // stream progress: N = units done (grep: files searched)
	replyLines                          // stream items: spawn output lines
	replyExit                           // spawn or system completed: Exit
	replyKindEnd
)

// maxWireItems bounds how many items one decoded reply may claim. Producers
// send far smaller batches; the bound exists so a hostile length prefix cannot
// make the main goroutine allocate gigabytes.
const maxWireItems = 1 << 16

// reply is the one wire type of the runtime. It has hand-written MessagePack
// methods because it is on the hot path of every job and every stream item:
// reflection costs about 1.4 us per 7-field match each way, the hand-written
// form a small fraction of that (see BenchmarkWire*).
//
// Layout: an array [job, kind, payload...] whose payload depends on kind.
type reply struct {
	Job     JobID
	Kind    replyKind
	N       uint64
	Msg     string
	Code    string
	Ints    []uint64
	Matches []grep.Match
	Listing *fsops.Listing
	Entry   *fsops.Entry
	Value   any
	Lines   []SpawnLine  // decoded spawn lines
	Exit    *SpawnResult // spawn and system outcome
	// rawLines are a worker's lines, encoded straight from proc's buffer
	// (sending encodes before it returns, so aliasing it is safe).
	rawLines []proc.Line
}

func (r *reply) EncodeMsgpack(e *msgpack.Encoder) error {
	fields := 2
	switch r.Kind {
	case replyFailed:
		fields = 4
	case replySum, replyParse, replyProgress, replyInts, replyMatches, replyListing, replyEntry, replyValue,
		replyLines, replyExit:
		fields = 3
	}
	if err := e.EncodeArrayLen(fields); err != nil {
		return err
	}
	if err := e.EncodeUint(uint64(r.Job)); err != nil {
		return err
	}
	if err := e.EncodeUint(uint64(r.Kind)); err != nil {
		return err
	}
	switch r.Kind {
	case replySum, replyParse, replyProgress:
		return e.EncodeUint(r.N)
	case replyFailed:
		if err := e.EncodeString(r.Msg); err != nil {
			return err
		}
		return e.EncodeString(r.Code)
	case replyInts:
		if err := e.EncodeArrayLen(len(r.Ints)); err != nil {
			return err
		}
		for _, v := range r.Ints {
			if err := e.EncodeUint(v); err != nil {
				return err
			}
		}
		return nil
	case replyMatches:
		return encodeMatches(e, r.Matches)
	case replyListing:
		return encodeListing(e, r.Listing)
	case replyEntry:
		return encodeEntry(e, r.Entry)
	case replyValue:
		return e.Encode(r.Value)
	case replyLines:
		return encodeLines(e, r.rawLines)
	case replyExit:
		return encodeExit(e, r.Exit)
	}
	return nil
}

func (r *reply) DecodeMsgpack(d *msgpack.Decoder) error {
	n, err := d.DecodeArrayLen()
	if err != nil {
		return err
	}
	if n < 2 {
		return fmt.Errorf("reply: %d fields, want at least 2", n)
	}
	job, err := d.DecodeUint64()
	if err != nil {
		return err
	}
	kind, err := d.DecodeUint8()
	if err != nil {
		return err
	}
	r.Job, r.Kind = JobID(job), replyKind(kind)
	want := 2
	switch r.Kind {
	case replyUnit, replyCancelled, replyClosed:
	case replySum, replyParse, replyProgress:
		want = 3
		r.N, err = d.DecodeUint64()
	case replyFailed:
		want = 4
		if r.Msg, err = d.DecodeString(); err == nil {
			r.Code, err = d.DecodeString()
		}
	case replyInts:
		want = 3
		r.Ints, err = decodeInts(d)
	case replyMatches:
		want = 3
		r.Matches, err = decodeMatches(d)
	case replyListing:
		want = 3
		r.Listing, err = decodeListing(d)
	case replyEntry:
		want = 3
		var ent fsops.Entry
		ent, err = decodeEntry(d)
		r.Entry = &ent
	case replyValue:
		want = 3
		r.Value, err = decodeValue(d, 0)
	case replyLines:
		want = 3
		r.Lines, err = decodeLines(d)
	case replyExit:
		want = 3
		r.Exit, err = decodeExit(d)
	default:
		return fmt.Errorf("reply: unknown kind %d", kind)
	}
	if err != nil {
		return err
	}
	if n != want {
		return fmt.Errorf("reply kind %d: %d fields, want %d", kind, n, want)
	}
	return nil
}

// maxWireDepth bounds how deeply an external job's value may nest, so a
// hostile payload cannot recurse the decoder off its stack.
const maxWireDepth = 64

// decodeValue decodes an arbitrary value as DecodeInterface does (arrays as
// []any, maps as map[string]any), but refuses arrays and maps longer than
// maxWireItems and values nested deeper than maxWireDepth. DecodeInterface
// sizes a slice or map by its length prefix before reading an element, so a
// few bytes claiming billions of items would exhaust memory.
func decodeValue(d *msgpack.Decoder, depth int) (any, error) {
	if depth > maxWireDepth {
		return nil, fmt.Errorf("value nested deeper than %d", maxWireDepth)
	}
	c, err := d.PeekCode()
	if err != nil {
		return nil, err
	}
	switch {
	case msgpcode.IsFixedArray(c) || c == msgpcode.Array16 || c == msgpcode.Array32:
		n, err := decodeLen(d)
		if err != nil {
			return nil, err
		}
		out := make([]any, 0, min(n, 64))
		for range n {
			v, err := decodeValue(d, depth+1)
			if err != nil {
				return nil, err
			}
			out = append(out, v)
		}
		return out, nil
	case msgpcode.IsFixedMap(c) || c == msgpcode.Map16 || c == msgpcode.Map32:
		n, err := d.DecodeMapLen()
		if err != nil {
			return nil, err
		}
		if n > maxWireItems {
			return nil, fmt.Errorf("map of %d entries exceeds %d", n, maxWireItems)
		}
		out := make(map[string]any, min(n, 64))
		for range n {
			k, err := d.DecodeString()
			if err != nil {
				return nil, err
			}
			if out[k], err = decodeValue(d, depth+1); err != nil {
				return nil, err
			}
		}
		return out, nil
	}
	return d.DecodeInterface()
}

// decodeLen reads an array header and refuses lengths past maxWireItems.
func decodeLen(d *msgpack.Decoder) (int, error) {
	n, err := d.DecodeArrayLen()
	if err != nil {
		return 0, err
	}
	if n < 0 || n > maxWireItems {
		return 0, fmt.Errorf("array of %d items exceeds %d", n, maxWireItems)
	}
	return n, nil
}

func decodeInts(d *msgpack.Decoder) ([]uint64, error) {
	n, err := decodeLen(d)
	if err != nil {
		return nil, err
	}
	out := make([]uint64, 0, min(n, 4096))
	for range n {
		v, err := d.DecodeUint64()
		if err != nil {
			return nil, err
		}
		out = append(out, v)
	}
	return out, nil
}
