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
// Ties go to the shorter candidate (in characters), then to the earlier one (fzf --filter's
// order with its default scheme).
//
// Like fzf, a candidate with non-ASCII characters is matched and scored one character at a
// time: its characters take Unicode classes (lower, upper, letter, number, space), case
// folds with unicode.ToLower, and an accented Latin letter or a fullwidth ASCII character
// matches its plain ASCII letter unless the term itself holds such a character (`resume`
// finds résumé.md; `résumé` finds only the accented one). Positions are byte offsets of
// the matched characters.
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
// each, the mask including the ASCII letters of accented ones), so a caller such as the runtime can keep one per root or per list id and search it
// on every keystroke. Search scores the store in chunks of 1024 candidates on
// Options.Threads goroutines, each keeping its own top-K heap; the heaps merge at the end
// and only the final top matches get positions. A candidate whose presence mask lacks a
// character the query needs is rejected without scoring, and once a goroutine's heap is
// full, a one-term fuzzy query skips the alignment of any candidate whose score bound
// cannot beat the worst entry kept (it still counts in Result.Total).
//
// Result.Refine makes narrowing cheap: when the new pattern can only match a subset of what
// the previous one matched (Pattern.Narrows: more characters typed, a term added), it scores
// only the previous matches, plus any candidates added to the store since. When the new
// query is a single fuzzy term that extends the previous one by typed characters, Refine
// does not align every previous match either: it checks each past where its previous match
// ended (a byte scan), bounds its score by its previous bound plus what the new characters
// can add, and aligns only the matches whose bound can still reach the top-K, highest
// bounds first and, among equal bounds, shortest first (the tie-break), so that the many
// paths that tie on a short query are settled by the few shortest. The previous top
// matches, aligned first, set a floor: a match whose bound cannot beat it is only checked,
// never bounded from its text (a high bound is tightened from the text, in the scan when
// a small sample of aligned matches suggests it may reach the new top-K). On a million
// paths most matches of a narrowing query are far below the top 200, so most are never
// aligned. A first one-letter query is likewise answered from the presence masks, scoring
// only the candidates whose bound (from where they can earn the largest bonus) can reach
// the top-K. Options.First ranks only a prefix of the store, a quick first ranking whose
// result refines to the whole.
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
