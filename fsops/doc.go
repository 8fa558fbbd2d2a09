// Package fsops holds the filesystem primitives an editor's directory view
// needs (list a directory, stat a path, rename, chmod, remove, make a
// directory) with two
// promises: every failure says which operation failed, on which path and why
// (an error taxonomy matchable with errors.Is/As plus an errno name for Lua),
// and a failure leaves the filesystem exactly as it was.
//
// # Concurrency contract
//
// Every function is a plain blocking call, safe to run from any number of
// goroutines at once; the package keeps no state between calls. The caller
// (the runtime) decides ordering: fsops does not serialise two renames that
// touch the same path, it only makes each one atomic where the platform
// allows. Cancellation is a context.Context. ReadDir polls it between batches
// of entries, so even a 100,000-entry directory gives up within a frame; the
// single-syscall operations check it once before touching anything and never
// undo a syscall that already happened (a cancelled call either did nothing
// and returns an error matching ErrCancelled, or completed and returns nil).
//
// # Symlinks
//
// No operation follows a symlink in the final component of its path: Stat
// describes the link, Remove and Rename act on the link, Mkdir refuses it
// (a dangling link is not created through), and Chmod refuses a
// link (Linux cannot change a link's own mode, and changing its target would
// let a link inside a confined root reach outside). ReadDir is the exception:
// it lists the directory its path names, following a symlink to it, as ls
// does; the entries themselves are never followed.
//
// # Confinement
//
// Roots holds the confined operations: its methods are ReadDir, Stat,
// Rename, Chmod, Remove and Mkdir, limited to a set of root directories. Each
// checks the path as Confine does (so an escape is refused before anything
// is touched) and then acts through a directory descriptor that the kernel
// opened beneath the root (openat2 with RESOLVE_BENEATH on Linux, os.Root
// elsewhere), so a directory swapped for a symlink between the check and
// the operation is never followed out of the root. Confine and
// ConfineFollow remain as checks alone: they touch nothing, and an
// operation called after one of them is not protected by it.
//
// # Platforms
//
// On Linux, ReadDir reads names with getdents and lstats entries relative to
// the open directory descriptor; Rename without overwrite uses
// renameat2(RENAME_NOREPLACE) and Chmod uses fchmodat2(AT_SYMLINK_NOFOLLOW),
// confined or not. Confined operations open their directory with openat2
// (Linux 5.6), or on older kernels walk the path one component at a time
// without following any link.
// Elsewhere the same behaviour is built from the os package, and a
// no-overwrite Rename is check-then-rename: a destination created by someone
// else between the check and the rename is replaced. See Rename. There the
// confined operations use os.Root, which cannot rename from one root to
// another (EXDEV).
package fsops
