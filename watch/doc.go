// Package watch follows the changes under a directory tree and hands them over in coalesced
// batches, for an editor that must know when the disk changes under it (a file another
// program wrote, a branch checked out).
//
// It watches the directories the walk package would list (the same ignore files, hidden
// rule and skipped names, through walk.Filter): an ignored tree such as node_modules or a
// .gitignore'd build directory is not watched at all, so it costs no kernel watch and
// produces no event. Directories are watched as they appear and dropped as they go; a
// directory that appears is scanned once its watch is in place, and what it already holds is
// reported as created, so `mkdir -p a/b && touch a/b/f` loses nothing.
//
// The kernel side is github.com/fsnotify/fsnotify: the maintained wrapper of inotify (and of
// kqueue and ReadDirectoryChangesW elsewhere), which owns the descriptor, its reader
// goroutine and a clean Close; raw inotify through x/sys would tie the package to Linux and
// repeat that reader for little gain, since the tree logic (ignore rules, new directories,
// renames) sits above the kernel API either way.
//
// # Coalescing
//
// A storm (a checkout touching 10,000 files) arrives as a few batches, not 10,000 calls: the
// changes wait in one pending set keyed by path, where a later change of a path replaces the
// earlier one in place (the last operation per path per batch), and the set is handed over
// Options.Latency after its first change, or as soon as the consumer is ready again if it
// was busy with the previous batch. The set is bounded (Options.MaxPending paths): past it
// the changes are dropped and replaced by one notice saying the consumer must list the tree
// afresh; so is a kernel queue overflow.
//
// # Limits
//
// When the kernel refuses a watch because the user's watch limit is reached (ENOSPC from
// inotify_add_watch, fs.inotify.max_user_watches), the watcher says so once, in a notice
// (Event.Notice), and polls the modification times of the directories it could not watch
// every Options.PollEvery instead, reporting the names that appeared (Create) and went
// (Remove) there. Writes to files in a polled directory are not seen: a directory's
// modification time does not change when a file in it is written.
//
// # Concurrency
//
// Watch blocks until ctx ends or emit fails. emit runs on Watch's caller's goroutine, one call
// at a time; while it blocks (a consumer applying back pressure) the changes keep being
// gathered by Watch's own goroutine, within the bound. When Watch returns, the kernel watcher
// is closed and every goroutine Watch started has returned.
package watch
