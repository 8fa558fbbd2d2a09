package runtime

import (
	"context"
	"os"
	"slices"
	"sync"
	"time"

	"github.com/vmihailenco/msgpack/v5"

	"github.com/pmacs-go/pmacs-go/bus/wire"
	"github.com/pmacs-go/pmacs-go/grep"
	"github.com/pmacs-go/pmacs-go/workers"
)

// keptKind is a test kind shaped like parse: its value waits in a handoff
// of the kind's own (Discard drops one nobody took, Held counts them), and
// the job completes with how long it worked.
var KindKept Kind

func init() {
	KindKept = RegisterKind(KindSpec{
		Name:    "kept",
		Value:   keptCodec{},
		Summary: func(v any) any { return "kept, worked " + v.(time.Duration).Round(time.Microsecond).String() },
		Discard: func(rt *Runtime, id JobID) { keptOf(rt).take(id) },
	})
}

// keptActor is the fixture's actor of its own, in the heavy lane as parse.
const keptActor workers.ActorID = "test:kept"

type keptStore struct {
	mu   sync.Mutex
	vals map[JobID][]byte
}

func keptOf(rt *Runtime) *keptStore {
	return StateOf(rt, KindKept, func() *keptStore { return &keptStore{vals: make(map[JobID][]byte)} })
}

func (s *keptStore) take(id JobID) []byte {
	s.mu.Lock()
	defer s.mu.Unlock()
	v := s.vals[id]
	delete(s.vals, id)
	return v
}

func (s *keptStore) Held() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.vals)
}

// DispatchKept copies src on a worker, checking the context every KiB,
// and keeps the copy for TakeKept.
func (rt *Runtime) DispatchKept(src []byte, o DispatchOptions) JobID {
	src = append([]byte(nil), src...)
	st := keptOf(rt)
	return rt.Start(Job{Kind: KindKept, Actor: keptActor, Lane: workers.LaneHeavy,
		Run: func(ctx context.Context, w *Task) (any, error) {
			start := time.Now()
			out := make([]byte, 0, len(src))
			for i := 0; i < len(src); i += 1024 {
				if err := ctx.Err(); err != nil {
					return nil, err
				}
				out = append(out, src[i:min(i+1024, len(src))]...)
			}
			st.mu.Lock()
			st.vals[w.ID()] = out
			st.mu.Unlock()
			return max(time.Since(start), 1), nil
		}}, o)
}

// DispatchKeptUntilCancelled is a kept job that works until it is
// cancelled, as a parse of a large file is still parsing when the runtime
// closes.
func (rt *Runtime) DispatchKeptUntilCancelled(o DispatchOptions) JobID {
	return rt.Start(Job{Kind: KindKept, Actor: keptActor, Lane: workers.LaneHeavy,
		Run: func(ctx context.Context, _ *Task) (any, error) {
			<-ctx.Done()
			return nil, ctx.Err()
		}}, o)
}

// TakeKept takes what a kept job kept; nil if nothing waits.
func (rt *Runtime) TakeKept(id JobID) []byte { return keptOf(rt).take(id) }

type keptCodec struct{}

func (keptCodec) EncodeValue(e *msgpack.Encoder, v any) error {
	return e.EncodeInt(int64(v.(time.Duration)))
}

func (keptCodec) DecodeValue(d *msgpack.Decoder) (any, error) {
	n, err := d.DecodeInt64()
	return time.Duration(n), err
}

// testKind is the kind of this package's own test jobs. The demo and
// filesystem kinds live in kinds/demojob and kinds/fsjob, which the tests
// of package runtime_test use; a test here that needs a job of its own
// starts one of this kind.
var testKind = RegisterKind(KindSpec{Name: "test"})

// startValue starts a job that completes with v.
func (rt *Runtime) startValue(v uint64, o DispatchOptions) JobID {
	return rt.Start(Job{Kind: testKind, Actor: BuiltinActor, Lane: workers.LaneRead,
		Run: func(context.Context, *Task) (any, error) { return v, nil }}, o)
}

// startUntilCancelled starts a job that works until it is cancelled.
func (rt *Runtime) startUntilCancelled(o DispatchOptions) JobID {
	return rt.Start(Job{Kind: testKind, Actor: BuiltinActor, Lane: workers.LaneRead,
		Run: func(ctx context.Context, _ *Task) (any, error) {
			<-ctx.Done()
			return nil, ctx.Err()
		}}, o)
}

// startRename renames from to to in the mutating lane of from's root: the
// one mutation the tests of roots and lanes need.
func (rt *Runtime) startRename(from, to string, o DispatchOptions) JobID {
	return rt.Start(Job{Kind: testKind, Path: from, Lane: workers.LaneMutating,
		Resource: &ResourceOp{Op: ResourceRename, From: from, To: to},
		Run:      func(context.Context, *Task) (any, error) { return nil, os.Rename(from, to) }}, o)
}

// testIntsKind is a stream of integers in the one integer-batch codec.
var testIntsKind = RegisterKind(KindSpec{Name: "test_ints", Items: intsCodec{}})

// startInts streams 1..n in one batch.
func (rt *Runtime) startInts(n uint64, o DispatchOptions) JobID {
	return rt.Start(Job{Kind: testIntsKind, Actor: BuiltinActor, Lane: workers.LaneStream, Stream: true,
		Run: func(ctx context.Context, w *Task) (any, error) {
			batch := make(testInts, n)
			for i := range batch {
				batch[i] = uint64(i + 1)
			}
			return nil, w.Send(ctx, batch)
		}}, o)
}

// testInts is a batch of testIntsKind.
type testInts []uint64

func (s testInts) Len() int                     { return len(s) }
func (s testInts) Weight() int                  { return len(s) }
func (s testInts) Append(more Items) Items      { return append(s, more.(testInts)...) }
func (s testInts) Cut(n int) (head, rest Items) { return s[:n:n], s[n:] }

type intsCodec struct{}

func (intsCodec) EncodeItems(e *msgpack.Encoder, items Items) error {
	return wire.EncodeUints(e, items.(testInts))
}

func (intsCodec) DecodeItems(_ []byte, d *msgpack.Decoder) (Items, error) {
	v, err := wire.DecodeUints(d, 4096)
	return testInts(v), err
}

// intsReply is a worker's batch of integers for job id.
func intsReply(id JobID, v ...uint64) *reply {
	return &reply{Job: id, Kind: replyItems, N: uint64(len(v)), items: testInts(v), kind: testIntsKind}
}

// intsOf is a batch's integers, nil for none.
func intsOf(b StreamBatch) []uint64 {
	s, _ := b.Items.(testInts)
	if len(s) == 0 {
		return nil
	}
	return s
}

// testLines are items that weigh by their length, as a program's lines
// do: one unit per started 4 KiB.
type testLines []string

func (s testLines) Len() int { return len(s) }
func (s testLines) Weight() int {
	n := 0
	for _, l := range s {
		n += 1 + len(l)/4096
	}
	return n
}
func (s testLines) Append(more Items) Items      { return append(s, more.(testLines)...) }
func (s testLines) Cut(n int) (head, rest Items) { return s[:n:n], s[n:] }

// detailKind is a stream whose progress carries a detail in the kind's
// own codec, as grep's skip counts do.
var detailKind = RegisterKind(KindSpec{Name: "detailed", Items: intsCodec{}, Detail: stringCodec{}})

type stringCodec struct{}

func (stringCodec) EncodeValue(e *msgpack.Encoder, v any) error { return e.EncodeString(v.(string)) }
func (stringCodec) DecodeValue(d *msgpack.Decoder) (any, error) { return d.DecodeString() }

// KindGrep is grep as a test fixture (kinds/grepjob has the real one, with
// its fast wire form): a stream in the stream lane of the root that holds
// the search, its progress the files searched and its detail the skip
// counts.
var KindGrep = RegisterKind(KindSpec{Name: "grep", Items: fixtureMatchesCodec{}, Detail: fixtureSkippedCodec{},
	ProgressLabel: "files searched"})

// searchTree is the fixture's search, swapped by tests that need a search
// to stop at a known point.
var searchTree = grep.Search

func (rt *Runtime) DispatchGrep(spec grep.Spec, o DispatchOptions) JobID {
	spec.SkipDirs = slices.Clone(spec.SkipDirs)
	return rt.Start(Job{Kind: KindGrep, Path: spec.Root, Lane: workers.LaneStream, Stream: true,
		Run: func(ctx context.Context, w *Task) (any, error) {
			stats, err := searchTree(ctx, spec, func(ms []grep.Match) error {
				if err := w.Acquire(ctx, len(ms)); err != nil {
					return err
				}
				w.SendAcquired(fixtureMatches(slices.Clone(ms)))
				return nil
			})
			if err != nil {
				return nil, err
			}
			w.Progress(uint64(stats.FilesSearched), stats.Skipped)
			return nil, nil
		}}, o)
}

// fixtureMatches is a batch of the grep fixture's matches.
type fixtureMatches []grep.Match

func (s fixtureMatches) Len() int                     { return len(s) }
func (s fixtureMatches) Weight() int                  { return len(s) }
func (s fixtureMatches) Append(more Items) Items      { return append(s, more.(fixtureMatches)...) }
func (s fixtureMatches) Cut(n int) (head, rest Items) { return s[:n:n], s[n:] }

type fixtureMatchesCodec struct{}

// fixtureMatch is a match on the wire as arrays, as grepjob's form is, so
// a batch weighs on the bus what a real one does.
type fixtureMatch struct {
	_msgpack   struct{} `msgpack:",as_array"`
	File       string
	Line       uint32
	Text       string
	Start, End uint32
	Spans      [][2]uint32
}

func (fixtureMatchesCodec) EncodeItems(e *msgpack.Encoder, items Items) error {
	ms := items.(fixtureMatches)
	out := make([]fixtureMatch, len(ms))
	for i, m := range ms {
		out[i] = fixtureMatch{File: m.File, Line: m.Line, Text: m.Text, Start: m.MatchStart, End: m.MatchEnd, Spans: m.Spans}
	}
	return e.Encode(out)
}

func (fixtureMatchesCodec) DecodeItems(_ []byte, d *msgpack.Decoder) (Items, error) {
	var in []fixtureMatch
	if err := d.Decode(&in); err != nil {
		return nil, err
	}
	ms := make(fixtureMatches, len(in))
	for i, m := range in {
		ms[i] = grep.Match{File: m.File, Line: m.Line, Text: m.Text, MatchStart: m.Start, MatchEnd: m.End, Spans: m.Spans}
	}
	return ms, nil
}

type fixtureSkippedCodec struct{}

func (fixtureSkippedCodec) EncodeValue(e *msgpack.Encoder, v any) error {
	return e.Encode(v.(grep.SkipCounts))
}

func (fixtureSkippedCodec) DecodeValue(d *msgpack.Decoder) (any, error) {
	var c grep.SkipCounts
	err := d.Decode(&c)
	return c, err
}

// matchesReply is a worker's batch of grep fixture matches for job id.
func matchesReply(id JobID, ms ...grep.Match) *reply {
	return &reply{Job: id, Kind: replyItems, N: uint64(len(ms)), items: fixtureMatches(ms), kind: KindGrep}
}

// matchesOf is a batch's grep fixture matches, nil for none.
func matchesOf(b StreamBatch) []grep.Match {
	s, _ := b.Items.(fixtureMatches)
	return s
}
