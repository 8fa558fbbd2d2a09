package fsops

// Kind is what a directory entry is, as lstat sees it: a symlink is a
// symlink whatever it points at.
type Kind uint8

const (
	KindFile Kind = iota
	KindDir
	KindSymlink
	// KindOther covers devices, FIFOs and sockets: listed, never opened.
	KindOther
)

// String returns "file", "dir", "symlink" or "other"; the Lua binding uses it
// as the entry's type field.
func (k Kind) String() string {
	switch k {
	case KindFile:
		return "file"
	case KindDir:
		return "dir"
	case KindSymlink:
		return "symlink"
	default:
		return "other"
	}
}

// Entry is the lstat view of one path.
type Entry struct {
	// Name is the base name: the directory entry's name in a Listing, the
	// last element of the path for Stat.
	Name string
	Kind Kind
	Size int64
	// Mode holds the permission bits plus setuid, setgid and sticky, in
	// chmod's octal layout (st_mode & 07777), so it round-trips with Chmod.
	Mode uint32
	// MTime is the modification time in Unix nanoseconds.
	MTime int64
	// Target is what a symlink points at, exactly as stored (readlink);
	// empty for every other kind.
	Target string
}

// Tolerance selects what ReadDir does when one entry cannot be described.
type Tolerance uint8

const (
	// Fatal makes ReadDir all or nothing: the first entry that cannot be
	// described fails the whole call.
	Fatal Tolerance = iota
	// PerEntry returns every entry that could be described and lists the
	// others, each with its error, in Listing.Errors.
	PerEntry
)

// EntryError is one entry ReadDir could not describe under PerEntry.
type EntryError struct {
	// Name is the raw entry name; under ErrNonUTF8Path it is not valid
	// UTF-8 and should be shown escaped.
	Name string
	// Err is a *PathError naming the entry's full path.
	Err error
}

// Listing is the result of ReadDir.
type Listing struct {
	// Entries is sorted by name (byte order).
	Entries []Entry
	// Errors is empty under Fatal; under PerEntry it is sorted by name too.
	Errors []EntryError
}
