package runtime

// TreeNote is news about a directory tree from a job that follows it (a
// watch): the tree is followed from now on, paths in it changed, the job
// may miss changes from now on, or it stopped. A kind that follows trees
// reports them with Runtime.NoteTree (from its KindSpec.Observe and
// Discard, on the main goroutine), and every kind state with a
// NoteTree(TreeNote) method hears of them, as it hears of completed
// mutations: a cache of the tree (the finder's file lists) then stays
// current from the follower's changes instead of polling the disk.
type TreeNote struct {
	// Job is the job that follows the tree; Root its root, absolute.
	Job  JobID
	Root string
	// Event says what happened.
	Event TreeEvent
	// The follower's filter, in the walk's terms: a consumer that lists
	// more than it (hidden files when it is not Hidden, a directory named
	// in SkipDirs) cannot rely on it for that part.
	Hidden, NoIgnore bool
	SkipDirs         []string
	// Changes are the changed paths, for TreeChanged.
	Changes []TreeChange
}

// TreeEvent is what a TreeNote reports.
type TreeEvent uint8

// The tree events.
const (
	// TreeFollowed: every directory of the tree the filter admits is
	// followed; changes from now on are noted.
	TreeFollowed TreeEvent = iota + 1
	// TreeChanged: Changes changed.
	TreeChanged
	// TreeLost: the follower may miss changes from now on (changes were
	// dropped, or directories are polled for want of kernel watches): list
	// the tree afresh and stop relying on it.
	TreeLost
	// TreeUnfollowed: the follower stopped.
	TreeUnfollowed
)

// TreeChange is one changed path of a TreeNote.
type TreeChange struct {
	Path string // absolute
	Dir  bool   // a directory
	// Gone: the path was removed or renamed away. Written: its content or
	// mode changed (or it was made and written before the follower looked:
	// a consumer that keeps names only checks whether it knows it).
	Gone, Written bool
}

// NoteTree hands n to every kind state with a NoteTree(TreeNote) method.
// Call it on the main goroutine (a kind's Observe or Discard).
func (rt *Runtime) NoteTree(n TreeNote) {
	rt.eachState(func(s any) {
		if t, ok := s.(interface{ NoteTree(TreeNote) }); ok {
			t.NoteTree(n)
		}
	})
}
