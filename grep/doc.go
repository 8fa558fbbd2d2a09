// Package grep is a parallel, cancellable search of a directory tree for a literal or a
// regular expression, reporting every matching line through a callback.
//
// # Topology
//
// Search runs on walk.Walk: Spec.Fanout goroutines share one LIFO queue of tasks. A task is
// either a directory (read it, filter its entries, queue its subdirectories and its files in
// small batches) or a batch of files, which grep searches (open each relative to its
// directory, which the walk holds open for its batches; read it into the goroutine's reused
// buffer, a buffer of whole lines at a time; search the whole buffer for a pair of the
// needle's rarest bytes; split lines only around hits). Walking and searching therefore
// overlap and balance across the goroutines; no goroutine outlives Search.
//
// # Concurrency contract
//
//   - emit may be called concurrently from several goroutines. Each call carries matches of one
//     file only, in line order; a file with very many matching lines arrives in several
//     consecutive calls from the same goroutine. The slice and its contents belong to the
//     callee once emit is called; with Spec.ReuseBatch the slice itself is the search's again
//     once emit returns (the texts and spans of its matches stay the callee's).
//   - If emit returns an error, the search stops and Search returns that error.
//   - Cancelling ctx stops every goroutine at its next check (between files, per read chunk,
//     per scanned window, per directory read call) and Search returns an error matching
//     context.Canceled or context.DeadlineExceeded, after every goroutine has returned. A
//     blocked emit is not interrupted: an emit that can block should watch ctx itself.
//   - Reaching Spec.MaxResults stops the search early without an error.
//   - A panic on a fanout goroutine, in the search or in emit, does not kill the process: the
//     search stops and, once every goroutine has returned, Search panics on the caller's
//     goroutine with the same value (an emit that calls runtime.Goexit likewise makes Search
//     call it), so the caller's recover or its executor's panic isolation handles it.
//
// # Filtering
//
// The walk package decides which files are searched; its rules, summed up here, are the same
// for every user of the walk. Symlinks are never followed nor searched. Hidden entries (names starting with '.') are
// skipped unless Spec.Hidden. Directories named in Spec.SkipDirs are skipped. Unless
// Spec.NoIgnore, ignore files follow ripgrep's rules: `.ignore` everywhere, `.gitignore` and
// `.git/info/exclude` only inside a git work tree, ignore files of the root's ancestors
// included, nearer files winning and `.ignore` winning over `.gitignore`. Globs match bytes,
// as in git and ripgrep: '?' and a class match one byte of a multi-byte name. Matching one path
// against one ignore line costs at most a small polynomial in their lengths, whatever the
// stars in the line, so an ignore file cannot stall a search or delay its cancel. A file larger than
// Spec.MaxFileBytes or holding a NUL byte in its first 8 KiB (binary) is skipped, as is any line
// that is not valid UTF-8. What was left out is counted by reason (Stats.Skipped, and
// Spec.Skipped while the search runs), so a caller can say what it did not look at. A root
// that cannot be read fails the search with ErrBadRoot; an unreadable directory or file below
// it is counted and the search goes on, as ripgrep warns and goes on.
package grep
