package runtime

import "time"

// epoch anchors the runtime's timestamps. Jobs record monotonic offsets from
// it: time.Since reads only the monotonic clock, about a third of the cost of
// time.Now, which reads the wall clock too and would be two of the most
// expensive calls on the dispatch path.
var epoch = time.Now()

// mono is a monotonic timestamp: the time since epoch.
type mono time.Duration

func monoNow() mono { return mono(time.Since(epoch)) }

// sub returns a-b as a duration.
func (a mono) sub(b mono) time.Duration { return time.Duration(a - b) }
