package bus

import (
	"bytes"
	"errors"
	"fmt"
	"maps"
	"reflect"
	"sync"
	"sync/atomic"

	"github.com/vmihailenco/msgpack/v5"
)

// Envelope is one message on the bus: a registered topic and the MessagePack
// encoding of a value of the topic's type. The payload is owned by the
// envelope; nothing else aliases it.
type Envelope struct {
	Topic   string
	Payload []byte
}

var (
	// ErrDuplicateTopic is returned when a topic is registered twice.
	ErrDuplicateTopic = errors.New("bus: topic already registered")
	// ErrUnknownTopic is returned when sending or decoding a topic that was
	// never registered.
	ErrUnknownTopic = errors.New("bus: topic not registered")
	// ErrTypeMismatch is returned when a value's type is not the type
	// registered for its topic.
	ErrTypeMismatch = errors.New("bus: value type does not match the topic's registered type")
	// ErrMalformed is returned when a payload cannot be decoded into the
	// topic's type. It wraps the decoder's own error.
	ErrMalformed = errors.New("bus: malformed payload")
	// ErrClosed is returned by sends after the bus was closed.
	ErrClosed = errors.New("bus: closed")
)

// Registry maps topics to the Go types their payloads carry. It is safe for
// concurrent use; registration normally happens once at start-up.
type Registry struct {
	mu     sync.Mutex // serialises Register
	topics atomic.Pointer[map[string]reflect.Type]
}

// NewRegistry returns an empty registry.
func NewRegistry() *Registry {
	r := &Registry{}
	r.topics.Store(&map[string]reflect.Type{})
	return r
}

// Register binds topic to the type of sample (a value or a pointer to one;
// the registered type is the pointed-to type).
func (r *Registry) Register(topic string, sample any) error {
	if topic == "" {
		return fmt.Errorf("bus: register: empty topic")
	}
	t := reflect.TypeOf(sample)
	if t == nil {
		return fmt.Errorf("bus: register %q: nil sample has no type", topic)
	}
	if t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	// Copy on write: registration happens a handful of times at start-up,
	// lookups on every envelope, which then take no lock.
	old := *r.topics.Load()
	if prev, ok := old[topic]; ok {
		return fmt.Errorf("%w: %q (as %v)", ErrDuplicateTopic, topic, prev)
	}
	next := make(map[string]reflect.Type, len(old)+1)
	maps.Copy(next, old)
	next[topic] = t
	r.topics.Store(&next)
	return nil
}

// Register binds topic to T.
func Register[T any](r *Registry, topic string) error {
	var zero T
	return r.Register(topic, &zero)
}

func (r *Registry) typeOf(topic string) (reflect.Type, error) {
	t, ok := (*r.topics.Load())[topic]
	if !ok {
		return nil, fmt.Errorf("%w: %q", ErrUnknownTopic, topic)
	}
	return t, nil
}

// check verifies that v (a value or pointer) has topic's registered type.
func (r *Registry) check(topic string, v any) error {
	want, err := r.typeOf(topic)
	if err != nil {
		return err
	}
	got := reflect.TypeOf(v)
	if got != nil && got.Kind() == reflect.Pointer && got.Elem() == want {
		return nil
	}
	if got != want {
		return fmt.Errorf("%w: topic %q carries %v, got %v", ErrTypeMismatch, topic, want, got)
	}
	return nil
}

// Encode checks v against topic's type and encodes it into a fresh envelope.
func (r *Registry) Encode(topic string, v any) (Envelope, error) {
	if err := r.check(topic, v); err != nil {
		return Envelope{}, err
	}
	buf := bufPool.Get().(*bytes.Buffer)
	buf.Reset()
	enc := msgpack.GetEncoder()
	enc.Reset(buf)
	var err error
	// A hand-written encoder is called directly: msgpack's Encode would
	// first look the type up in its reflection cache, most of the cost of
	// a small reply. check has vetted the type; a nil pointer still goes
	// the generic way, which encodes it as nil.
	if ce, ok := v.(msgpack.CustomEncoder); ok && !reflect.ValueOf(v).IsNil() {
		err = ce.EncodeMsgpack(enc)
	} else {
		err = enc.Encode(v)
	}
	msgpack.PutEncoder(enc)
	if err != nil {
		putBuf(buf)
		return Envelope{}, fmt.Errorf("bus: encode %q: %w", topic, err)
	}
	payload := bytes.Clone(buf.Bytes())
	putBuf(buf)
	return Envelope{Topic: topic, Payload: payload}, nil
}

// Decode decodes env's payload into v, which must be a non-nil pointer to
// the topic's registered type. A payload that is truncated, has trailing
// bytes, or does not match the type yields an error wrapping ErrMalformed; a
// decoder panic (from a custom decoder fed hostile bytes) is turned into the
// same error rather than escaping.
func (r *Registry) Decode(env Envelope, v any) error {
	d := decoderPool.Get().(*Decoder)
	d.reg = r
	err := d.Decode(env, v)
	d.reg = nil
	decoderPool.Put(d)
	return err
}

// maxPooledBuf keeps one huge payload (a directory listing of 100,000
// entries) from pinning its buffer in the pool for the life of the process.
const maxPooledBuf = 64 << 10

func putBuf(b *bytes.Buffer) {
	if b.Cap() <= maxPooledBuf {
		bufPool.Put(b)
	}
}

var (
	bufPool     = sync.Pool{New: func() any { return new(bytes.Buffer) }}
	decoderPool = sync.Pool{New: func() any { return newDecoder(nil) }}
)

// Decoder decodes envelopes like Registry.Decode but keeps one MessagePack
// decoder and reader for all of them, which is what a loop draining
// thousands of envelopes a frame wants. A Decoder belongs to one goroutine.
type Decoder struct {
	reg *Registry
	rd  bytes.Reader
	dec *msgpack.Decoder
}

// NewDecoder returns a reusable decoder for r's topics.
func (r *Registry) NewDecoder() *Decoder { return newDecoder(r) }

func newDecoder(r *Registry) *Decoder {
	d := &Decoder{reg: r}
	d.dec = msgpack.NewDecoder(&d.rd)
	return d
}

// Decode decodes env into v, with the checks and errors Registry.Decode
// documents.
func (d *Decoder) Decode(env Envelope, v any) (err error) {
	want, err := d.reg.typeOf(env.Topic)
	if err != nil {
		return err
	}
	rv := reflect.ValueOf(v)
	if rv.Kind() != reflect.Pointer || rv.IsNil() || rv.Type().Elem() != want {
		return fmt.Errorf("%w: decode %q needs *%v, got %T", ErrTypeMismatch, env.Topic, want, v)
	}
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("%w: topic %q: decoder panicked: %v", ErrMalformed, env.Topic, p)
		}
		if err != nil {
			// msgpack keeps the buffer a string read grew into, and a
			// length prefix that claims more than the payload holds grows
			// it (doubling) before the read fails: reused after garbage,
			// the buffer would double with every malformed envelope. A
			// decoder that failed starts afresh instead.
			d.dec = msgpack.NewDecoder(&d.rd)
		}
	}()
	d.rd.Reset(env.Payload)
	d.dec.Reset(&d.rd)
	var derr error
	if cd, ok := v.(msgpack.CustomDecoder); ok {
		derr = cd.DecodeMsgpack(d.dec)
	} else {
		derr = d.dec.Decode(v)
	}
	rest := d.rd.Len()
	d.rd.Reset(nil)
	if derr != nil {
		return fmt.Errorf("%w: topic %q: %w", ErrMalformed, env.Topic, derr)
	}
	if rest != 0 {
		return fmt.Errorf("%w: topic %q: %d trailing bytes", ErrMalformed, env.Topic, rest)
	}
	return nil
}
