package walk

import (
	"runtime"

	"golang.org/x/sys/unix"
)

// backgroundNice is what a background walk's threads add to their nice value.
const backgroundNice = 10

// background moves the calling goroutine to a thread of its own and lowers that thread's CPU
// priority. On Linux a nice value belongs to a thread (setpriority with who 0 is the calling
// thread), so the rest of the process keeps its own. The goroutine stays locked to the
// thread until it returns, and the runtime then ends the thread rather than reuse it, so no
// lowered thread outlives the walk.
func background() {
	runtime.LockOSThread()
	if prio, err := unix.Getpriority(unix.PRIO_PROCESS, 0); err == nil {
		// The raw syscall returns 20 - nice.
		nice := 20 - prio
		_ = unix.Setpriority(unix.PRIO_PROCESS, 0, min(nice+backgroundNice, 19))
	}
}
