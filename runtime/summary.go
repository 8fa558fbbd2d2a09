package runtime

import (
	"fmt"
	"strconv"
	"time"
)

// resultSummary is what the completion ring keeps of a job's value. It is
// made at settle without formatting anything (a settle is on the hot path
// of every job); String formats it when a snapshot asks.
type resultSummary struct {
	shape resultShape
	small any    // shapeSmall: the value itself, which holds no large memory
	n, m  uint64 // sizes: items, entries, bytes; m is a second count
}

type resultShape uint8

const (
	shapeNone   resultShape = iota // nothing to show
	shapeSmall                     // small holds the value
	shapeItems                     // a stream: n items, m-1 of its ProgressLabel
	shapeString                    // a long string of n bytes
	shapeBytes                     // n bytes of binary
	shapeArray                     // n items
	shapeMap                       // n keys
	shapeOther                     // small is a type name
)

// maxSmallString is the longest string the ring keeps as itself.
const maxSmallString = 60

// summarizeInto sets *s to summarize(j). The common summaries (none, a
// small value) are stored field by field: a summary returned and then
// copied into the ring's slot stalled on its own stores.
func summarizeInto(s *resultSummary, j *job) {
	if j.state == Complete && j.stream == nil && j.kind.spec().Summary == nil {
		switch j.value.(type) {
		case nil:
			s.shape, s.small, s.n, s.m = shapeNone, nil, 0, 0
			return
		case bool, int, int64, uint64, float64:
			s.shape, s.small, s.n, s.m = shapeSmall, j.value, 0, 0
			return
		}
	} else if j.state != Complete {
		s.shape, s.small, s.n, s.m = shapeNone, nil, 0, 0
		return
	}
	*s = summarize(j)
}

// summarize describes a settled job's value for the ring.
func summarize(j *job) resultSummary {
	if j.state != Complete {
		return resultSummary{}
	}
	if j.stream != nil {
		s := resultSummary{shape: shapeItems, n: j.stream.received}
		if j.kind.spec().ProgressLabel != "" {
			// +1 so that 0 files still shows; the kind (a small integer
			// in an interface, which does not allocate) names the label.
			s.m, s.small = j.stream.progress+1, j.kind
		}
		if f := j.kind.spec().Summary; f != nil && j.value != nil {
			s.small = f(j.value)
		}
		return s
	}
	if f := j.kind.spec().Summary; f != nil && j.value != nil {
		return resultSummary{shape: shapeOther, small: f(j.value)}
	}
	switch v := j.value.(type) {
	case nil:
		return resultSummary{}
	case string:
		if len(v) > maxSmallString {
			return resultSummary{shape: shapeString, n: uint64(len(v))}
		}
	case []byte:
		return resultSummary{shape: shapeBytes, n: uint64(len(v))}
	case []any:
		return resultSummary{shape: shapeArray, n: uint64(len(v))}
	case map[string]any:
		return resultSummary{shape: shapeMap, n: uint64(len(v))}
	case bool, int8, int16, int32, int64, int, uint8, uint16, uint32, uint64, uint,
		float32, float64, time.Time:
	default:
		return resultSummary{shape: shapeOther, small: fmt.Sprintf("%T", v)}
	}
	// The value is a scalar or a small struct already boxed in the job's
	// outcome: keeping the same interface costs nothing.
	return resultSummary{shape: shapeSmall, small: j.value}
}

// String formats the summary for the *workers* view.
func (s resultSummary) String() string {
	switch s.shape {
	case shapeSmall:
		switch v := s.small.(type) {
		case string:
			return strconv.Quote(v)
		}
		return fmt.Sprint(s.small)
	case shapeItems:
		if s.m > 0 {
			k, _ := s.small.(Kind)
			return fmt.Sprintf("%d items, %d %s", s.n, s.m-1, k.spec().ProgressLabel)
		}
		if s.small != nil {
			return fmt.Sprintf("%d items, %v", s.n, s.small)
		}
		return fmt.Sprintf("%d items", s.n)
	case shapeString:
		return fmt.Sprintf("string of %d bytes", s.n)
	case shapeBytes:
		return fmt.Sprintf("%d bytes", s.n)
	case shapeArray:
		return fmt.Sprintf("array of %d items", s.n)
	case shapeMap:
		return fmt.Sprintf("map of %d keys", s.n)
	case shapeOther:
		return fmt.Sprint(s.small)
	}
	return ""
}
