package runtime

// The counters below are Stats fields under the names this package's tests
// have long used; they are test helpers, not part of the API.

// PendingLen is Stats().Pending.
func (rt *Runtime) PendingLen() int { return rt.Stats().Pending }

// SupersedeLen is Stats().SupersedeKeys.
func (rt *Runtime) SupersedeLen() int { return rt.Stats().SupersedeKeys }

// ParseHandoffLen is Stats().ParseTrees.
func (rt *Runtime) ParseHandoffLen() int { return rt.Stats().ParseTrees }

// MalformedReplies is Stats().MalformedReplies.
func (rt *Runtime) MalformedReplies() uint64 { return rt.Stats().MalformedReplies }
