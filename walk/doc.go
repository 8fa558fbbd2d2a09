// Package walk lists the files under a directory in parallel, with ripgrep's filtering
// rules, for every part of the project that needs a tree's files: grep searches them, the
// fuzzy file finder ranks them.
//
// Walk is the engine: goroutines that read directories and hand batches of files to a
// visit function, which does the real work on the same goroutines (grep searches each
// file). List is built on it for callers that want the file list itself: relative paths
// streamed in chunks while the walk runs, with every directory's modification time so that
// a cache of the list can tell which directories changed since.
//
// # Topology
//
// Options.Fanout goroutines share one LIFO queue of tasks. A task is either a directory
// (read it with one getdents loop, no stat per entry; apply the ignore rules; visit it; queue
// its subdirectories and its files in batches of a few names) or a batch of files (visit
// it). Depth first keeps the queue short, and reading and visiting overlap and balance
// across the goroutines. On Linux a directory stays open until its last batch has been
// visited (Dir.Fd), so that a visit can open its files relative to it.
//
// # Concurrency
//
//   - Walk and List may be called from any goroutine, any number at once; they return only
//     after every goroutine they started has returned.
//   - visit (and List's emit through it) runs on the fanout goroutines. Calls with different
//     worker numbers run concurrently; calls with the same worker number never do. List
//     serialises emit: no two emit calls overlap.
//   - A *Dir is never modified after its first visit, so it may be kept and read from any
//     goroutine.
//   - Cancelling ctx stops every goroutine at its next check (before each task, per getdents
//     call while reading a directory) and Walk returns an error matching ctx.Err(). A visit
//     in progress is not interrupted: a long visit should watch ctx itself.
//   - A visit's error stops the walk in the same way, and Walk returns it (fs.SkipAll stops
//     without an error).
//   - A panic in visit does not kill the process: the walk stops and, once every goroutine
//     has returned, Walk panics on its caller's goroutine with the same value (a visit that
//     calls runtime.Goexit likewise makes Walk call it).
//
// # Filtering
//
// The rules are ripgrep's defaults, so that `rg --files` lists the same files. Symlinks are
// never followed nor listed; devices, fifos and sockets are not listed. Hidden entries (names
// starting with '.') are skipped unless Options.Hidden, but a whitelist line ("!name") of an
// ignore file brings one back. Directories named in Options.SkipDirs are not entered. Unless
// Options.NoIgnore, ignore files apply: `.ignore` everywhere, `.gitignore` and
// `.git/info/exclude` only inside a git work tree (a directory holding `.git`, a directory or
// the file of a linked work tree or submodule), the ignore files of the root's ancestors
// included, the nearer file winning and `.ignore` winning over `.gitignore`. A nested
// repository starts afresh: the `.gitignore` files above its root do not reach into it, while
// `.ignore` files still do. Globs match bytes, as in git and ripgrep: '?' and a class match
// one byte of a multi-byte name. Matching one path against one ignore line costs at most a
// small polynomial in their lengths, whatever the stars in the line, so an ignore file cannot
// stall a walk or delay its cancel. A directory that cannot be read is reported (Dir.Err,
// DirInfo.Err) and skipped; the walk goes on.
package walk
