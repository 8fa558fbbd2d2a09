// Package fuzzy ranks a list of strings (file paths, buffer names, commands) against a
// query typed into a picker, the way fzf does, and returns the best matches with the
// positions of the matched characters.
//
// # Scoring
//
// A fuzzy term matches when its characters appear in order in the candidate. Among all such
// alignments the best one is chosen by dynamic programming, with fzf's "v2" rules and
// constants: every matched character scores 16; a gap costs 3 to open and 1 per further
// character; a character at a word boundary earns a bonus (10 after whitespace or at the
// start, 9 after one of / , : ; |, 8 after other punctuation, 7 at a camelCase hump or the
// first digit of a number); consecutive matched characters keep the bonus of the run's first
// character; and the bonus of the query's first character counts twice. So `rtsup` finds
// runtime/supersede.go, `sbox` finds SearchBox.tsx, and `fb` prefers foo_bar over fooxbar.
// Ties go to the shorter candidate, then to the earlier one (fzf --filter's order
// with its default scheme). Classes and case folding are ASCII: a byte of a multi-byte UTF-8
// character is a letter that matches only itself.
//
// # Queries
//
// ParsePattern accepts fzf's extended syntax: terms separated by spaces must all match
// (`cmd ssa`), `'foo` matches exactly, `'foo'` exactly at word boundaries, `^foo` as a
// prefix, `foo$` as a suffix, `^foo$` the whole text, `!foo` excludes (also `!^foo`,
// `!foo$`, `!'foo` for a fuzzy exclusion), `a | b` matches either, and `\ ` is a literal
// space. A term with an upper-case letter is case-sensitive; otherwise case is ignored
// (smart case).
//
// # Searching
//
// A Store holds the candidates compactly (one byte slice, an end offset and a presence mask
// each), so a caller such as the runtime can keep one per root or per list id and search it
// on every keystroke. Search scores the store in chunks of 1024 candidates on
// Options.Threads goroutines, each keeping its own top-K heap; the heaps merge at the end
// and only the final top matches get positions. A candidate whose presence mask lacks a
// character the query needs is rejected without scoring, and once a goroutine's heap is
// full, a one-term fuzzy query skips the alignment of any candidate whose score bound
// cannot beat the worst entry kept (it still counts in Result.Total).
//
// Result.Refine makes narrowing cheap: when the new pattern can only match a subset of what
// the previous one matched (Pattern.Narrows: more characters typed, a term added), it scores
// only the previous matches, plus any candidates added to the store since.
//
// # Concurrency
//
//   - Search and Refine run their goroutines and wait for all of them before returning; none
//     outlives the call. They only read the Store and the Result they are given, so any
//     number may run at once on the same Store.
//   - A Store must not be mutated (Add, AddBytes, AddLines, Remove) while anything else uses
//     it. The expected use is one owner that mutates it between searches, for example the
//     single worker that owns a root's file list.
//   - Cancelling the context stops every goroutine at its next look, which happens every 256
//     candidates and, for long candidates, after about 32K alignment cells (tens of
//     microseconds of work, far less than one chunk), and Search returns an error wrapping the
//     context's error and its cause. A superseded query therefore wastes at most one chunk
//     of work per goroutine, in practice much less. One candidate is never interrupted: a
//     single line of many megabytes is scored (greedily, in linear time) to its end.
//   - A Result and its Matches are owned by the caller; Refine does not modify the Result
//     it is called on.
//   - Pattern is a value and safe to share.
package fuzzy
