package fsops

import (
	"strings"
	"unicode/utf8"
)

// checkPath refuses the inputs that must never reach a syscall, before
// anything is touched.
func checkPath(op, path, path2 string, p string) error {
	var why error
	switch {
	case p == "":
		why = ErrEmptyPath
	case strings.IndexByte(p, 0) >= 0:
		why = ErrNULInPath
	case !utf8.ValidString(p):
		why = ErrNonUTF8Path
	default:
		return nil
	}
	return &PathError{Op: op, Path: path, Path2: path2, Err: why}
}
