package walk

// entryKind is what a directory entry is, as far as the walk cares.
type entryKind uint8

const (
	kindOther   entryKind = iota // devices, sockets, fifos: never listed
	kindFile                     // a regular file
	kindDir                      // a directory
	kindSymlink                  // never followed nor listed
)

type dirEntry struct {
	name string
	kind entryKind
}
