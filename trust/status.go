package trust

import (
	"time"
)

// Status is where a folder stands.
type Status int

const (
	// Untrusted: the user never decided (or removed the decision).
	Untrusted Status = iota
	// Trusted: the user allowed the folder, and what it allows has not
	// changed since.
	Trusted
	// Denied: the user refused the folder; it is not asked about again.
	Denied
	// Changed: the user allowed the folder, but what it allows changed
	// since. It is not trusted until the user allows it again.
	Changed
)

// String is the status as Lua and the docs spell it.
func (s Status) String() string {
	switch s {
	case Untrusted:
		return "untrusted"
	case Trusted:
		return "trusted"
	case Denied:
		return "denied"
	case Changed:
		return "changed"
	}
	return "unknown"
}

// Report is a folder's status with what it rests on.
type Report struct {
	// Folder is the folder's real path, the database's key.
	Folder string
	// Status is the decision as it applies now.
	Status Status
	// Items are what the folder allows now (see Allowed); nil for a
	// denied folder, whose contents are not read. Their contents are
	// hashed only where a decision is compared with them (Trusted,
	// Changed, Allow): an undecided folder's items have an empty Hash.
	Items []Item
	// Changes say what differs from what was allowed, for Changed
	// (".bin/gopls changed", ".bin/tool added", ".bin/old removed").
	Changes []string
	// Decided is when the decision was recorded; zero for Untrusted.
	Decided time.Time
}

// Trusted reports whether programs and configuration from the folder may
// be used.
func (r Report) Trusted() bool { return r.Status == Trusted }

// Names lists the items' names (".bin/gopls"), in order.
func (r Report) Names() []string {
	out := make([]string, 0, len(r.Items))
	for _, it := range r.Items {
		out = append(out, it.Name)
	}
	return out
}
