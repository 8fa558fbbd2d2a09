package trust

import (
	"fmt"
	"io/fs"
	"syscall"
)

// fileID identifies a file's contents as far as its stat can: a write
// changes its size or its change time, which no user can set back.
func fileID(fi fs.FileInfo) string {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return ""
	}
	return fmt.Sprintf("%d:%d:%d:%o:%d.%d:%d.%d", st.Dev, st.Ino, st.Size, st.Mode,
		st.Mtim.Sec, st.Mtim.Nsec, st.Ctim.Sec, st.Ctim.Nsec)
}
