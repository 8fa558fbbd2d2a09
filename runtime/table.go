package runtime

import "iter"

// tableSlots is the size of the pending table's ring: a power of two, well
// above the jobs an editor has running at once, so that an id finds its
// slot free unless a job dispatched tableSlots ids earlier is still pending.
const tableSlots = 1 << 10

// jobTable is the pending table: the jobs not yet taken, by id. Every job
// is looked up, settled and deleted a few times per dispatch, and a Go map
// costs tens of nanoseconds for each of those (its delete also reseeds the
// hash once the map empties, which it does after every round trip of a
// lone job). Ids are handed out in order and most jobs are taken soon
// after, so a job sits in the ring slot its low bits name; the rare job
// whose slot is still held by an older one (a long-lived stream, an
// external wait, a burst of more than tableSlots) goes to the overflow map.
// A job stays where it was put until it is deleted.
type jobTable struct {
	slots [tableSlots]*job
	more  map[JobID]*job
	n     int
}

func (t *jobTable) get(id JobID) *job {
	if j := t.slots[id&(tableSlots-1)]; j != nil && j.t.id == id {
		return j
	}
	if len(t.more) == 0 {
		return nil
	}
	return t.more[id]
}

// put adds j, whose id is not in the table.
func (t *jobTable) put(j *job) {
	t.n++
	s := &t.slots[j.t.id&(tableSlots-1)]
	if *s == nil {
		*s = j
		return
	}
	if t.more == nil {
		t.more = make(map[JobID]*job)
	}
	t.more[j.t.id] = j
}

func (t *jobTable) del(id JobID) {
	s := &t.slots[id&(tableSlots-1)]
	if j := *s; j != nil && j.t.id == id {
		*s = nil
		t.n--
		return
	}
	if _, ok := t.more[id]; ok {
		delete(t.more, id)
		t.n--
	}
}

func (t *jobTable) len() int { return t.n }

// all yields every job in the table, in no particular order. The body may
// delete the job it was given.
func (t *jobTable) all() iter.Seq[*job] {
	return func(yield func(*job) bool) {
		if t.n == 0 {
			return
		}
		for _, j := range &t.slots {
			if j != nil && !yield(j) {
				return
			}
		}
		for _, j := range t.more {
			if !yield(j) {
				return
			}
		}
	}
}
