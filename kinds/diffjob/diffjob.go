// Package diffjob is the diff kind: two texts compared line by line on a
// worker (package diff, the hunks `git diff -U0` prints), each given as a
// string or as lines an owner lends without copying (an editor's buffer
// snapshot), so a keystroke's diff of a large file costs the main
// goroutine only the dispatch and the hunks.
package diffjob

import (
	"context"
	"errors"
	"fmt"
	"iter"
	"slices"
	"strings"
	"sync/atomic"

	"github.com/vmihailenco/msgpack/v5"

	"github.com/pmacs-go/pmacs-go/bus/wire"
	"github.com/pmacs-go/pmacs-go/diff"
	"github.com/pmacs-go/pmacs-go/runtime"
	"github.com/pmacs-go/pmacs-go/workers"
)

// Kind is the diff kind ("diff").
var Kind = runtime.RegisterKind(runtime.KindSpec{
	Name:  "diff",
	Value: hunksCodec{},
	Summary: func(v any) any {
		if hs, ok := v.([]diff.Hunk); ok {
			return fmt.Sprintf("%d hunks", len(hs))
		}
		return v
	},
})

// Lender lends its lines to a job: Hold returns them, walked in order
// (on the worker), and a release the job calls once it no longer reads
// them (at most once matters). The editor's text snapshot
// (textsearch.Snapshot) is one.
type Lender interface {
	Hold() (lines iter.Seq[string], release func(), err error)
}

// Text is one side of a diff: a string (split into lines on the worker)
// or a Lender's lines.
type Text struct {
	s      string
	lender Lender
}

// String is a text given as a string; "\n" and "\r\n" end its lines.
func String(s string) Text { return Text{s: s} }

// Lines is a text whose lines a Lender lends.
func Lines(l Lender) Text { return Text{lender: l} }

// Spec says what to compare.
type Spec struct {
	A, B Text
	// MaxWork bounds the search (diff.Options.MaxWork; 0 for its default).
	MaxWork int
}

// ErrSpec is wrapped by the failure of a diff that cannot run (a text
// whose lender refused).
var ErrSpec = errors.New("diffjob: invalid diff")

// maxHunks bounds the hunks a reply may claim: more than any two texts of
// the editor's size limits make, few enough that a forged reply allocates
// little.
const maxHunks = 1 << 24

// Dispatch compares spec.A with spec.B in the read lane of
// runtime.BuiltinActor and completes with their hunks ([]diff.Hunk, see
// HunksOf). Line breaks are not compared: a text's lines are its rows, as
// an editor shows them, so a file and its buffer are equal whether its
// lines end with "\n" or "\r\n", and with or without a last one.
// Cancelling the job stops the search within a few thousand steps.
func Dispatch(rt *runtime.Runtime, spec Spec, o runtime.DispatchOptions) runtime.JobID {
	// Lenders are asked here, on the dispatching goroutine, where the
	// owner may retire its text; a job cancelled before its worker starts
	// gives the lines back from its cancel.
	var releases []func()
	var lines [2]iter.Seq[string]
	var holdErr error
	for i, t := range []Text{spec.A, spec.B} {
		if t.lender == nil {
			continue
		}
		ls, rel, err := t.lender.Hold()
		if err != nil {
			holdErr = fmt.Errorf("%w: %w", ErrSpec, err)
			break
		}
		lines[i] = ls
		releases = append(releases, rel)
	}
	release := func() {
		for _, r := range releases {
			r()
		}
	}
	if holdErr != nil {
		release() // nothing will read what was lent
		releases = nil
	}
	var claim atomic.Int32 // 0 not started, 1 reading, 2 given back
	job := runtime.Job{Kind: Kind, Actor: runtime.BuiltinActor, Lane: workers.LaneRead,
		Run: func(ctx context.Context, _ *runtime.Task) (any, error) {
			if holdErr != nil {
				return nil, holdErr
			}
			if !claim.CompareAndSwap(0, 1) {
				return nil, context.Canceled
			}
			defer func() {
				claim.Store(2)
				release()
			}()
			var a, b []string
			if spec.A.lender == nil {
				a = rows(spec.A.s)
			} else {
				a = slices.Collect(lines[0])
			}
			if spec.B.lender == nil {
				b = rows(spec.B.s)
			} else {
				b = slices.Collect(lines[1])
			}
			hs, err := diff.Lines(ctx, a, b, diff.Options{MaxWork: spec.MaxWork, Rows: true})
			if err != nil {
				return nil, err
			}
			return hs, nil
		}}
	if len(releases) > 0 {
		job.Prepare = func(t *runtime.Task) {
			context.AfterFunc(t.Context(), func() {
				if claim.CompareAndSwap(0, 2) {
					release()
				}
			})
		}
	}
	return rt.Start(job, o)
}

// rows splits s into its rows: no line breaks ("\n" or "\r\n"), and no
// empty row after a last line break.
func rows(s string) []string {
	s = strings.TrimSuffix(s, "\n")
	if s == "" {
		return nil
	}
	out := strings.Split(s, "\n")
	for i, l := range out {
		out[i] = strings.TrimSuffix(l, "\r")
	}
	return out
}

// HunksOf returns a completed diff's hunks.
func HunksOf(o runtime.Outcome) ([]diff.Hunk, bool) {
	v, ok := o.Value()
	hs, isHunks := v.([]diff.Hunk)
	return hs, ok && (isHunks || v == nil)
}

// hunksCodec carries hunks as four integers each.
type hunksCodec struct{}

func (hunksCodec) EncodeValue(e *msgpack.Encoder, v any) error {
	hs := v.([]diff.Hunk)
	ints := make([]uint64, 0, 4*len(hs))
	for _, h := range hs {
		ints = append(ints, uint64(h.OldStart), uint64(h.OldCount), uint64(h.NewStart), uint64(h.NewCount))
	}
	return wire.EncodeUints(e, ints)
}

func (hunksCodec) DecodeValue(d *msgpack.Decoder) (any, error) {
	ints, err := wire.DecodeUints(d, 4096)
	if err != nil {
		return nil, err
	}
	if len(ints)%4 != 0 || len(ints)/4 > maxHunks {
		return nil, fmt.Errorf("diffjob: a reply of %d integers is not whole hunks", len(ints))
	}
	hs := make([]diff.Hunk, len(ints)/4)
	for i := range hs {
		q := ints[4*i : 4*i+4]
		for _, n := range q {
			if n > 1<<40 {
				return nil, fmt.Errorf("diffjob: a hunk's line number %d is out of range", n)
			}
		}
		hs[i] = diff.Hunk{OldStart: int(q[0]), OldCount: int(q[1]), NewStart: int(q[2]), NewCount: int(q[3])}
	}
	return hs, nil
}
