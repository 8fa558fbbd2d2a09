package runtime

import (
	"bytes"
	"fmt"

	"github.com/pmacs-go/pmacs-go/bus/wire"

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
	_                                   // once emit_n's and text search's items; now replyItems
	_                                   // once grep's matches; now replyItems
	replyClosed                         // stream completed
	_                                   // once parse's; parse now carries its own value
	_                                   // once read_dir's value; now replyResult
	_                                   // once stat's value; now replyResult
	replyValue                          // external job completed with Value
	replyProgress                       // stream progress: N = units done (grep: files searched)
	_                                   // once spawn's lines; now replyItems
	_                                   // once spawn's and system's exit; now replyResult
	replyExternal                       // external job completed; its value waits in the job entry
	_                                   // once find_files' snapshot; now replyItems
	_                                   // once find_files' and fuzzy's ranking; now replyResult
	replyItems                          // stream items in their kind's form: [job, kind, weight, items]
	replyResult                         // completed with a value in its kind's form: [job, kind, value]
	replyKindEnd
)

// reply is the one wire type of the runtime. It has hand-written MessagePack
// methods because it is on the hot path of every job and every stream item:
// reflection costs about 1.4 us per 7-field match each way, the hand-written
// form a small fraction of that (see BenchmarkWire*).
//
// Layout: an array [job, kind, payload...] whose payload depends on kind.
type reply struct {
	Job   JobID
	Kind  replyKind
	N     uint64
	Msg   string
	Code  string
	Value any
	// items and detail are a kind's stream batch and progress detail,
	// carried by its codecs; kind names the codecs on the sending side.
	items  Items
	detail any
	kind   Kind
	// err is a failed reply's error in this process; it never crosses the
	// bus (the job entry keeps it, see task.keepFailure).
	err error
}

func (r *reply) EncodeMsgpack(e *msgpack.Encoder) error {
	fields := 2
	switch r.Kind {
	case replyFailed:
		fields = 4
	case replySum, replyProgress, replyValue:
		fields = 3
	}
	if r.Kind == replyProgress && r.detail != nil || r.Kind == replyItems {
		fields = 4
	}
	if r.Kind == replyResult {
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
	case replyProgress:
		if err := e.EncodeUint(r.N); err != nil {
			return err
		}
		if r.detail != nil {
			c := r.kind.spec().Detail
			if c == nil {
				return fmt.Errorf("reply: kind %s has no detail codec", r.kind)
			}
			return c.EncodeValue(e, r.detail)
		}
		return nil
	case replyItems:
		c := r.kind.spec().Items
		if c == nil {
			return fmt.Errorf("reply: kind %s has no items codec", r.kind)
		}
		if err := e.EncodeUint(r.N); err != nil {
			return err
		}
		return c.EncodeItems(e, r.items)
	case replyResult:
		c := r.kind.spec().Value
		if c == nil {
			return fmt.Errorf("reply: kind %s has no value codec for %T", r.kind, r.Value)
		}
		return c.EncodeValue(e, r.Value)
	case replySum:
		return e.EncodeUint(r.N)
	case replyFailed:
		if err := e.EncodeString(r.Msg); err != nil {
			return err
		}
		return e.EncodeString(r.Code)
	case replyValue:
		return encodeValue(e, r.Value, 0)
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
	case replyUnit, replyCancelled, replyClosed, replyExternal:
	case replySum:
		want = 3
		r.N, err = d.DecodeUint64()
	case replyProgress:
		// A progress detail (a fourth field) is read by its kind's codec
		// (applyKindReply); a reply that has one reaches here only when
		// its kind has none, and fails for its length.
		want = 3
		r.N, err = d.DecodeUint64()
	case replyFailed:
		want = 4
		if r.Msg, err = d.DecodeString(); err == nil {
			r.Code, err = d.DecodeString()
		}
	case replyValue:
		want = 3
		r.Value, err = decodeValue(d, 0)
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
// hostile payload cannot recurse the decoder off its stack, nor a cyclic
// value the encoder. It is encoding/json's own nesting limit, so anything a
// language server's JSON reply decodes to in Go also crosses the bus.
const maxWireDepth = 10_000

// encodeValue encodes v as msgpack's Encode does, walking the JSON-shaped
// containers ([]any, map[string]any) itself so that it can refuse a value
// nested deeper than maxWireDepth: without the bound a cyclic value (a map
// that contains itself) would recurse until the process dies of stack
// exhaustion, which no recover can catch.
func encodeValue(e *msgpack.Encoder, v any, depth int) error {
	if depth > maxWireDepth {
		return fmt.Errorf("value nested deeper than %d (or cyclic)", maxWireDepth)
	}
	switch v := v.(type) {
	case []any:
		if v == nil {
			return e.EncodeNil()
		}
		if err := e.EncodeArrayLen(len(v)); err != nil {
			return err
		}
		for _, x := range v {
			if err := encodeValue(e, x, depth+1); err != nil {
				return err
			}
		}
		return nil
	case map[string]any:
		if v == nil {
			return e.EncodeNil()
		}
		if err := e.EncodeMapLen(len(v)); err != nil {
			return err
		}
		for k, x := range v {
			if err := e.EncodeString(k); err != nil {
				return err
			}
			if err := encodeValue(e, x, depth+1); err != nil {
				return err
			}
		}
		return nil
	}
	return e.Encode(v)
}

// decodeValue decodes an arbitrary value as DecodeInterface does (arrays as
// []any, maps as map[string]any), but checks every length prefix against the
// bytes left and refuses values nested deeper than maxWireDepth.
// DecodeInterface sizes a slice or map by its length prefix before reading an
// element, so a few bytes claiming billions of items would exhaust memory.
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
		n, err := wire.DecodeLen(d, 1)
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
		if err := wire.CheckClaim(d, "map", n, 2); err != nil {
			return nil, err
		}
		out := make(map[string]any, min(n, 64))
		for range n {
			k, err := d.DecodeString()
			if err != nil {
				return nil, fmt.Errorf("map key: %w (only string keys cross the bus)", err)
			}
			if out[k], err = decodeValue(d, depth+1); err != nil {
				return nil, err
			}
		}
		return out, nil
	}
	if err := checkScalarClaim(d, c); err != nil {
		return nil, err
	}
	return d.DecodeInterface()
}

// checkScalarClaim refuses a bin, str or ext value whose length prefix
// claims more bytes than the payload holds. DecodeInterface allocates a
// binary value's claimed length before reading it (found by
// FuzzReplyDecode: a bin32 claiming 2.7 GB in a 13-byte reply), so the
// claim is checked first, by peeking at the header without consuming it.
func checkScalarClaim(d *msgpack.Decoder, c byte) error {
	switch c {
	case msgpcode.Bin8, msgpcode.Str8, msgpcode.Ext8, msgpcode.Bin16, msgpcode.Str16,
		msgpcode.Ext16, msgpcode.Bin32, msgpcode.Str32, msgpcode.Ext32:
	default:
		return nil // no length prefix, or one too small to matter
	}
	r, ok := d.Buffered().(*bytes.Reader)
	if !ok {
		return nil
	}
	var h [5]byte
	n, _ := r.ReadAt(h[:], r.Size()-int64(r.Len()))
	hdr := h[:n]
	if len(hdr) == 0 {
		return nil
	}
	width := 0
	switch hdr[0] {
	case msgpcode.Bin8, msgpcode.Str8, msgpcode.Ext8:
		width = 1
	case msgpcode.Bin16, msgpcode.Str16, msgpcode.Ext16:
		width = 2
	case msgpcode.Bin32, msgpcode.Str32, msgpcode.Ext32:
		width = 4
	default:
		return nil
	}
	if len(hdr) < 1+width {
		return nil // truncated: the decoder reports it
	}
	var size uint64
	for _, b := range hdr[1 : 1+width] {
		size = size<<8 | uint64(b)
	}
	if left := uint64(r.Len()); size > left {
		return fmt.Errorf("value claims %d bytes but only %d remain", size, left)
	}
	return nil
}

// peekJobID reads the job id of a reply that failed to decode: the first
// element of its array, when the payload gets that far. It reads the forms
// DecodeUint64 accepts and nothing else.
func peekJobID(p []byte) (JobID, bool) {
	if len(p) == 0 {
		return 0, false
	}
	switch c := p[0]; {
	case c > 0x90 && c <= 0x9f:
		p = p[1:]
	case c == 0xdc && len(p) >= 3 && (p[1] != 0 || p[2] != 0):
		p = p[3:]
	case c == 0xdd && len(p) >= 5 && (p[1] != 0 || p[2] != 0 || p[3] != 0 || p[4] != 0):
		p = p[5:]
	default:
		return 0, false
	}
	if len(p) == 0 {
		return 0, false
	}
	be := func(b []byte) (n uint64) {
		for _, x := range b {
			n = n<<8 | uint64(x)
		}
		return n
	}
	c, width := p[0], 0
	switch {
	case c <= 0x7f:
		return JobID(c), true
	case c == 0xcc || c == 0xd0:
		width = 1
	case c == 0xcd || c == 0xd1:
		width = 2
	case c == 0xce || c == 0xd2:
		width = 4
	case c == 0xcf || c == 0xd3:
		width = 8
	default:
		return 0, false
	}
	if len(p) < 1+width {
		return 0, false
	}
	n := be(p[1 : 1+width])
	if c >= 0xd0 && p[1]&0x80 != 0 {
		return 0, false // a negative signed integer names no job
	}
	return JobID(n), true
}

// applyKindReply applies a reply whose payload is in its kind's form (a
// stream batch, a value, a progress detail), decoding it with the kind's
// codec; it reports false, applying nothing, for any other reply, which the
// general decoder then decides. A payload the codec refuses fails its job
// as an undecodable reply does.
// fixedReply reads the rest of an integer-only reply (unit, cancelled,
// closed, external: two fields; sum, progress without a detail: three) whose
// array length, job and kind w has read, and reports whether it was one:
// anything else, or anything the general decoder would read differently
// (trailing bytes, another integer form), is left to it.
//
// It sets the fields of *r, a zero reply, one by one (a reply returned and
// copied stalled on its own stores); on false it leaves *r alone.
func fixedReply(r *reply, w *wire.Bytes, n int, id, rk uint64) bool {
	k := replyKind(rk)
	switch {
	case n == 2 && (k == replyUnit || k == replyCancelled || k == replyClosed || k == replyExternal):
		if w.Left() == 0 {
			r.Job, r.Kind = JobID(id), k
			return true
		}
	case n == 3 && (k == replySum || k == replyProgress):
		at := w.I
		if v, ok := w.Uint(); ok && w.Left() == 0 {
			r.Job, r.Kind, r.N = JobID(id), k, v
			return true
		}
		w.I = at
	}
	return false
}

// applyFixed applies p if it is a fixed-shape reply (see fixedReply), the
// way most jobs end, reading its header once; then, the reply keeping no
// reference to p, it gives p back to fixedBufs when p came from there. It
// reports false, touching nothing, for any other payload.
func (rt *Runtime) applyFixed(p []byte, now mono, out *TickOutcome) bool {
	w := wire.Bytes{P: p}
	n, ok := w.ArrayLen()
	if !ok || n < 2 || n > 3 {
		return false
	}
	id, ok1 := w.Uint()
	rk, ok2 := w.Uint()
	if !ok1 || !ok2 {
		return false
	}
	var r reply
	if !fixedReply(&r, &w, n, id, rk) {
		return false
	}
	// apply keeps nothing of r itself, so r stays on the stack.
	rt.apply(&r, now, out)
	if r.Kind != replyExternal && cap(p) == fixedReplyCap {
		fixedBufs.Put((*[fixedReplyCap]byte)(p[:fixedReplyCap]))
	}
	return true
}

func (rt *Runtime) applyKindReply(p []byte, now mono, out *TickOutcome) bool {
	w := wire.Bytes{P: p}
	n, ok := w.ArrayLen()
	if !ok {
		return false
	}
	id, ok1 := w.Uint()
	rk, ok2 := w.Uint()
	if !ok1 || !ok2 {
		return false
	}
	// A fixed-shape reply never gets here: applyFixed took it.
	var weight uint64
	switch {
	case rk == uint64(replyItems) && n == 4:
		if weight, ok = w.Uint(); !ok {
			return false
		}
	case rk == uint64(replyResult) && n == 3:
	case rk == uint64(replyProgress) && n == 4:
		if weight, ok = w.Uint(); !ok { // the count
			return false
		}
	default:
		return false
	}
	j := rt.pending.get(JobID(id))
	if j == nil {
		rt.scratch = reply{}
		return true // unknown or already taken: a late duplicate
	}
	if rk == uint64(replyItems) && j.stream == nil {
		// Items for a request/reply job are a handler's bug: nothing
		// would deliver them, and its kind has no codec to read them.
		rt.malformed++
		rt.scratch = reply{}
		return true
	}
	spec := j.kind.spec()
	if rk == uint64(replyProgress) && spec.Detail == nil {
		return false // the general decoder refuses it
	}
	v, err := rt.decodeKind(p[w.I:], func(d *msgpack.Decoder) (any, error) {
		switch replyKind(rk) {
		case replyItems:
			c := spec.Items
			if j.stream != nil && j.stream.codec != nil {
				c = j.stream.codec
			}
			if c == nil {
				return nil, fmt.Errorf("kind %s streams no items", j.kind)
			}
			return c.DecodeItems(p[w.I:], d)
		case replyResult:
			if spec.Value == nil {
				return nil, fmt.Errorf("kind %s completes with no value", j.kind)
			}
			return spec.Value.DecodeValue(d)
		}
		return spec.Detail.DecodeValue(d)
	})
	if err != nil {
		rt.malformed++
		rt.failUndecodable(j.t.id, err, now, out)
		return true
	}
	rt.scratch = reply{Job: j.t.id, Kind: replyKind(rk)}
	switch replyKind(rk) {
	case replyItems:
		it, _ := v.(Items)
		if it == nil || uint64(it.Weight()) != weight {
			rt.malformed++
			rt.failUndecodable(j.t.id, fmt.Errorf("a batch of weight %d decoded to %T", weight, v), now, out)
			return true
		}
		rt.scratch.items = it
	case replyResult:
		rt.scratch.Value = v
	default:
		rt.scratch.N, rt.scratch.detail = weight, v
	}
	rt.apply(&rt.scratch, now, out)
	rt.scratch = reply{}
	return true
}

// decodeKind runs a kind's decoder over p, which it must read to the end;
// a panic in the decoder is its error.
func (rt *Runtime) decodeKind(p []byte, dec func(*msgpack.Decoder) (any, error)) (v any, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("its decoder panicked: %v", r)
		}
		if err != nil {
			// As the bus's decoder does: a failed decode may have grown
			// the decoder's buffer to what a hostile prefix claimed.
			rt.kdec = msgpack.NewDecoder(&rt.kread)
		}
	}()
	rt.kread.Reset(p)
	rt.kdec.Reset(&rt.kread)
	if v, err = dec(rt.kdec); err != nil {
		return nil, err
	}
	// A codec that read p itself (ItemsCodec.DecodeItems) left the
	// decoder untouched, and checked p's end itself.
	if left := rt.kread.Len(); left != 0 && left != len(p) {
		return nil, fmt.Errorf("%d bytes left after the payload", left)
	}
	return v, nil
}
