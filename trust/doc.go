// Package trust holds the user's decisions about workspace folders: whether
// the programs and configuration a folder carries (a cloned repository's
// .bin/gopls, say) may be used, or only what the user installed outside it.
//
// A folder is untrusted until the user decides. Its decisions live in one
// JSON file in the user's state directory ([DefaultPath]:
// $XDG_STATE_HOME/pmacs/trust.json, by default
// ~/.local/state/pmacs/trust.json), as Neovim's vim.secure keeps its trust
// database in $XDG_STATE_HOME/nvim/trust. Each entry is keyed by the
// folder's real path (absolute, symlinks resolved, so a link to a folder
// shares the folder's decision) and an allow records a content hash of what
// the folder allows ([Allowed]: today every entry of <folder>/.bin, its name,
// mode, link target and contents). A folder whose allowed set changed after
// it was trusted (a pull that replaced .bin/gopls) is [Changed]: not
// trusted, and the report says what changed, until the user trusts it
// again. A deny holds whatever the folder's contents.
//
//	Status(folder) ──► real path ──► entry in trust.json ──► hash of Allowed(folder)
//	                                   none  → Untrusted
//	                                   deny  → Denied
//	                                   allow → Trusted if the hash matches, else Changed
//
// The file is written atomically (a temporary file in the same directory,
// mode 0600, renamed over it; the directory is made 0700). A file that is
// not a trust database this package wrote (bad JSON, another shape,
// another version) is an error matching [ErrCorrupt] that names it: the
// package never overwrites it, and never reads trust into it.
//
// [LookPath] and [Inside] resolve programs the way the editor's policy
// needs: a name on PATH skipping relative entries and entries inside an
// untrusted folder, and whether a path lies in a folder directly or through
// a symlink.
//
// # Concurrency contract
//
// A [DB]'s methods are safe to call from any number of goroutines: they
// serialise on the DB's mutex. Across processes (two editors), every
// change is a read-modify-write under an exclusive flock on the lock file
// beside the database (trust.json.lock, on Unix), so neither loses the
// other's decision, and readers need no lock because a rename replaces the
// file whole. A change waits at most 2 s for that lock: one still held
// then belongs to a process that hung holding it, and the change fails
// with an error matching [ErrLocked], writing nothing. Status runs on the calling goroutine: it lists the folder's
// allowed files, and reads and hashes them only to compare them with an
// allow (an undecided or denied folder's programs are never read). A DB
// remembers each file's hash beside its size, mode, inode and change
// times, so only the first such Status of a folder (or one after a file
// changed) reads the contents: 80 to 190 ms for a 42 MB gopls on two
// loaded cores, then 30 to 95 µs; an undecided folder's status costs
// about 30 µs (BenchmarkStatus42MB).
package trust
