package runtime

import (
	"context"
	"errors"
	"slices"
	"sync"
	"time"

	"github.com/vmihailenco/msgpack/v5"

	"github.com/pmacs-go/pmacs-go/bus/wire"
	"github.com/pmacs-go/pmacs-go/fsops"
	"github.com/pmacs-go/pmacs-go/grep"
	"github.com/pmacs-go/pmacs-go/workers"
)

// keptKind is a test kind shaped like parse: its value waits in a handoff
// of the kind's own (Discard drops one nobody took, Held counts them), and
// the job completes with how long it worked.
var keptKind Kind

func init() {
	keptKind = RegisterKind(KindSpec{
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
	return StateOf(rt, keptKind, func() *keptStore { return &keptStore{vals: make(map[JobID][]byte)} })
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

// dispatchKept copies src on a worker, checking the context every KiB,
// and keeps the copy for takeKept.
func dispatchKept(rt *Runtime, src []byte, o DispatchOptions) JobID {
	src = append([]byte(nil), src...)
	st := keptOf(rt)
	return rt.Start(Job{Kind: keptKind, Actor: keptActor, Lane: workers.LaneHeavy,
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

// dispatchKeptUntilCancelled is a kept job that works until it is
// cancelled, as a parse of a large file is still parsing when the runtime
// closes.
func dispatchKeptUntilCancelled(rt *Runtime, o DispatchOptions) JobID {
	return rt.Start(Job{Kind: keptKind, Actor: keptActor, Lane: workers.LaneHeavy,
		Run: func(ctx context.Context, _ *Task) (any, error) {
			<-ctx.Done()
			return nil, ctx.Err()
		}}, o)
}

// takeKept takes what a kept job kept; nil if nothing waits.
func takeKept(rt *Runtime, id JobID) []byte { return keptOf(rt).take(id) }

type keptCodec struct{}

func (keptCodec) EncodeValue(e *msgpack.Encoder, v any) error {
	return e.EncodeInt(int64(v.(time.Duration)))
}

func (keptCodec) DecodeValue(d *msgpack.Decoder) (any, error) {
	n, err := d.DecodeInt64()
	return time.Duration(n), err
}

// The demo kinds as test fixtures (kinds/demojob has the real ones, which
// this package's tests cannot import): a wait, a computation with a value,
// a stream of integers.
var (
	KindSleep      = RegisterKind(KindSpec{Name: "sleep"})
	KindComputeSum = RegisterKind(KindSpec{Name: "compute_sum"})
	KindEmitN      = RegisterKind(KindSpec{Name: "emit_n", Items: intsCodec{}})
)

// emitBatch is how many emit_n items a producer packs into one envelope.
const emitBatch = 256

func (rt *Runtime) DispatchSleep(d time.Duration, o DispatchOptions) JobID {
	return rt.Start(Job{Kind: KindSleep, Actor: BuiltinActor, Lane: workers.LaneRead,
		Run: func(ctx context.Context, _ *Task) (any, error) {
			if d > 0 {
				t := time.NewTimer(d)
				defer t.Stop()
				select {
				case <-ctx.Done():
				case <-t.C:
				}
			}
			return nil, ctx.Err()
		}}, o)
}

func (rt *Runtime) DispatchSum(n uint64, o DispatchOptions) JobID {
	return rt.Start(Job{Kind: KindComputeSum, Actor: BuiltinActor, Lane: workers.LaneRead,
		Run: func(ctx context.Context, _ *Task) (any, error) {
			var acc uint64
			for i := uint64(1); i <= n && i != 0; i++ {
				if i&1023 == 0 && ctx.Err() != nil {
					return nil, ctx.Err()
				}
				acc += i
			}
			if err := ctx.Err(); err != nil {
				return nil, err
			}
			return acc, nil
		}}, o)
}

func (rt *Runtime) DispatchEmitN(count uint64, o DispatchOptions) JobID {
	return rt.Start(Job{Kind: KindEmitN, Actor: BuiltinActor, Lane: workers.LaneStream, Stream: true,
		Run: func(ctx context.Context, w *Task) (any, error) {
			batch := make(testInts, 0, min(count, emitBatch))
			for i := uint64(1); i <= count && i != 0; i++ {
				if err := ctx.Err(); err != nil {
					return nil, err
				}
				batch = append(batch, i)
				if len(batch) == emitBatch {
					if err := w.Send(ctx, batch); err != nil {
						return nil, err
					}
					batch = make(testInts, 0, min(count-i, emitBatch))
				}
			}
			if len(batch) > 0 {
				if err := w.Send(ctx, batch); err != nil {
					return nil, err
				}
			}
			return nil, nil
		}}, o)
}

// testInts is an emit_n batch.
type testInts []uint64

func (s testInts) Len() int                     { return len(s) }
func (s testInts) Weight() int                  { return len(s) }
func (s testInts) Append(more Items) Items      { return append(s, more.(testInts)...) }
func (s testInts) Cut(n int) (head, rest Items) { return s[:n:n], s[n:] }

type intsCodec struct{}

func (intsCodec) EncodeItems(e *msgpack.Encoder, items Items) error {
	s := items.(testInts)
	if err := e.EncodeArrayLen(len(s)); err != nil {
		return err
	}
	for _, v := range s {
		if err := e.EncodeUint(v); err != nil {
			return err
		}
	}
	return nil
}

func (intsCodec) DecodeItems(_ []byte, d *msgpack.Decoder) (Items, error) {
	n, err := wire.DecodeLen(d, 1)
	if err != nil {
		return nil, err
	}
	out := make(testInts, 0, min(n, 4096))
	for range n {
		v, err := d.DecodeUint64()
		if err != nil {
			return nil, err
		}
		out = append(out, v)
	}
	return out, nil
}

// intsReply is a worker's batch of emit_n items for job id.
func intsReply(id JobID, v ...uint64) *reply {
	return &reply{Job: id, Kind: replyItems, N: uint64(len(v)), items: testInts(v), kind: KindEmitN}
}

// intsOf is a batch's emit_n items, nil for none.
func intsOf(b StreamBatch) []uint64 {
	s, _ := b.Items.(testInts)
	if len(s) == 0 {
		return nil
	}
	return s
}

// The filesystem kinds as test fixtures (kinds/fsjob has the real ones):
// the mutations report their resources and run in their root's mutating
// lane, reads in its read lane; a read_dir completes with the number of
// entries, a stat with the entry's size.
var (
	KindFSReadDir = RegisterKind(KindSpec{Name: "fs_read_dir"})
	KindFSStat    = RegisterKind(KindSpec{Name: "fs_stat"})
	KindFSRename  = RegisterKind(KindSpec{Name: "fs_rename"})
	KindFSChmod   = RegisterKind(KindSpec{Name: "fs_chmod"})
	KindFSRemove  = RegisterKind(KindSpec{Name: "fs_remove"})
	KindFSMkdir   = RegisterKind(KindSpec{Name: "fs_mkdir"})
)

// fsFixture runs op as a job of kind on path's root.
func (rt *Runtime) fsFixture(kind Kind, path string, lane workers.Lane, res *ResourceOp, o DispatchOptions, op func(ctx context.Context) (any, error)) JobID {
	return rt.Start(Job{Kind: kind, Path: path, Lane: lane, Resource: res,
		Run: func(ctx context.Context, _ *Task) (any, error) {
			v, err := op(ctx)
			switch {
			case err == nil:
				return v, nil
			case errors.Is(err, fsops.ErrCancelled):
				return nil, context.Canceled
			}
			return nil, &JobError{Message: err.Error(), Code: fsops.Errno(err), Err: err}
		}}, o)
}

func (rt *Runtime) DispatchReadDir(path string, tol fsops.Tolerance, o DispatchOptions) JobID {
	return rt.fsFixture(KindFSReadDir, path, workers.LaneRead, nil, o, func(ctx context.Context) (any, error) {
		l, err := fsops.ReadDir(ctx, path, tol)
		return uint64(len(l.Entries)), err
	})
}

func (rt *Runtime) DispatchStat(path string, o DispatchOptions) JobID {
	return rt.fsFixture(KindFSStat, path, workers.LaneRead, nil, o, func(ctx context.Context) (any, error) {
		e, err := fsops.Stat(ctx, path)
		return uint64(e.Size), err
	})
}

func (rt *Runtime) DispatchRename(from, to string, overwrite bool, o DispatchOptions) JobID {
	return rt.fsFixture(KindFSRename, from, workers.LaneMutating, &ResourceOp{Op: ResourceRename, From: from, To: to}, o,
		func(ctx context.Context) (any, error) { return nil, fsops.Rename(ctx, from, to, overwrite) })
}

func (rt *Runtime) DispatchChmod(path string, mode uint32, o DispatchOptions) JobID {
	return rt.fsFixture(KindFSChmod, path, workers.LaneMutating, nil, o,
		func(ctx context.Context) (any, error) { return nil, fsops.Chmod(ctx, path, mode) })
}

func (rt *Runtime) DispatchRemove(path string, o DispatchOptions) JobID {
	return rt.fsFixture(KindFSRemove, path, workers.LaneMutating, &ResourceOp{Op: ResourceRemove, From: path}, o,
		func(ctx context.Context) (any, error) { return nil, fsops.Remove(ctx, path) })
}

func (rt *Runtime) DispatchMkdir(path string, o DispatchOptions) JobID {
	return rt.fsFixture(KindFSMkdir, path, workers.LaneMutating, &ResourceOp{Op: ResourceMkdir, From: path}, o,
		func(ctx context.Context) (any, error) { return nil, fsops.Mkdir(ctx, path) })
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
