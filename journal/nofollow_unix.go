//go:build unix

package journal

import "syscall"

// noFollow keeps a symlink planted where a journal should be from being
// followed.
const noFollow = syscall.O_NOFOLLOW
