package editor

import (
	"errors"
	"fmt"
	"hash/maphash"
	"io"
	"io/fs"
	"os"
	"time"

	lua "github.com/yuin/gopher-lua"
)

// diskStamp is what a buffer knows of its file as it was last read or
// written: enough to tell, later, whether another program changed it.
type diskStamp struct {
	// known is false when nothing was recorded (a buffer whose path was
	// just set by save-as): a save then writes without asking.
	known bool
	// exists is false for a new file, missing when it was opened.
	exists bool
	size   int64
	mtime  time.Time
	hash   uint64
	// at is when the file was read or written: a change within
	// mtimeGranularity of it may have left the mtime as it was.
	at time.Time
}

// mtimeGranularity is how close to a read a later write may come and
// still leave the file's modification time unchanged: the coarsest
// timestamps editors meet (FAT, some network filesystems) tick every 2 s,
// and a kernel's clock for them every few milliseconds.
const mtimeGranularity = 2 * time.Second

// diskSeed keys the content hashes: they are compared only within this
// process, so a fast keyed hash does.
var diskSeed = maphash.MakeSeed()

func textHash(s string) uint64 { return maphash.String(diskSeed, s) }

func bytesHash(b []byte) uint64 { return maphash.Bytes(diskSeed, b) }

// diskState is what checkDisk found.
type diskState string

const (
	diskSame    diskState = "same"    // the file is as read or saved
	diskChanged diskState = "changed" // another program changed (or made) it
	diskGone    diskState = "gone"    // it was removed
	diskUnknown diskState = "unknown" // nothing recorded, or it cannot be read
)

// errChangedOnDisk refuses a save that would overwrite another program's
// change.
var errChangedOnDisk = errors.New("file changed on disk since it was read: M-x save-force to overwrite, M-R to reload")

// stampOf records a file's stat and the hash of its bytes.
func stampOf(st fs.FileInfo, hash uint64, at time.Time) diskStamp {
	return diskStamp{known: true, exists: true, size: st.Size(), mtime: st.ModTime(), hash: hash, at: at}
}

// checkDisk compares the file at path with what s recorded. It runs on a
// helper goroutine: it stats the file, and reads and hashes it when the
// stat leaves doubt (the size is the same but the mtime moved, or the
// mtime lies within mtimeGranularity of the read). fresh is s brought up
// to date when the file is the same (a touch), so the next check need not
// read it again.
func checkDisk(path string, s diskStamp) (state diskState, fresh diskStamp) {
	if !s.known {
		return diskUnknown, s
	}
	st, err := os.Stat(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		if s.exists {
			return diskGone, s
		}
		return diskSame, s
	case err != nil:
		return diskUnknown, s
	case !s.exists:
		return diskChanged, s
	case st.Size() != s.size:
		return diskChanged, s
	case st.ModTime().Equal(s.mtime) && s.at.Sub(st.ModTime()) >= mtimeGranularity:
		return diskSame, s
	}
	h, ok := hashFile(path)
	if !ok || h != s.hash {
		return diskChanged, s
	}
	s.mtime = st.ModTime()
	return diskSame, s
}

// hashFile hashes a file's bytes, reading at most maxFileBytes (a longer
// one cannot be the text a buffer holds).
func hashFile(path string) (uint64, bool) {
	f, err := os.Open(path)
	if err != nil {
		return 0, false
	}
	defer f.Close()
	var h maphash.Hash
	h.SetSeed(diskSeed)
	n, err := io.Copy(&h, io.LimitReader(f, maxFileBytes+1))
	if err != nil || n > maxFileBytes {
		return 0, false
	}
	return h.Sum64(), true
}

// luaDiskCheck is ed.disk_check(buf, on_done): compares buf's file with
// what the buffer last read or wrote, on a helper goroutine, and calls
// on_done(state): "same", "changed" (another program changed or made it),
// "gone" (removed), "busy" (a read or save of it is in flight: ask again
// once it lands) or "unknown" (nothing to compare: a view, a path just set
// by save-as, or a file that cannot be read).
func (e *session) luaDiskCheck(L *lua.LState) int {
	b := e.bufArg(L, "disk_check", 1)
	onDone := fnArg(L, "disk_check", 2, "on_done")
	switch {
	case b.path == "" || !b.disk.known:
		e.callLua(onDone, "disk_check on_done", lua.LString(diskUnknown))
		return 0
	case b.loading || b.saving:
		e.callLua(onDone, "disk_check on_done", lua.LString("busy"))
		return 0
	}
	path, stamp := b.path, b.disk
	e.goIO(func() func() {
		state, fresh := checkDisk(path, stamp)
		return func() {
			if e.bufs[b.id] == b && b.path == path && b.disk == stamp {
				b.disk = fresh
			}
			e.callLua(onDone, "disk_check on_done", lua.LString(state))
		}
	})
	return 0
}

// savedStamp stamps a file just written with data; a failed stat leaves
// nothing recorded, so the next save does not refuse for want of it.
func savedStamp(path string, data []byte) diskStamp {
	st, err := os.Stat(path)
	if err != nil {
		return diskStamp{}
	}
	return stampOf(st, bytesHash(data), time.Now())
}

// refuseClobber is the save's check, on its helper goroutine: an error
// when the file changed on disk since the buffer read or wrote it.
func refuseClobber(path string, s diskStamp) error {
	if state, _ := checkDisk(path, s); state == diskChanged {
		return fmt.Errorf("save %s: %w", path, errChangedOnDisk)
	}
	return nil
}
