// Package syntax parses source text with tree-sitter grammars: a registry of
// languages by name, cancellable parses, incremental reparses after edits,
// markdown fence injections, and highlight captures over a row range.
//
// # Topology
//
//	Parse(ctx, Request) ──► pooled parser for the language
//	      │                    (free list; a parser cancelled mid-parse is Reset before reuse)
//	      ├─ Prior + Edits ──► private copy of Prior's tree, edited, then reparsed
//	      └─ markdown ────────► block tree, then one injected tree per (inline)
//	                            node and per fenced code block with a known tag
//	Tree.Highlights(rows) ───► compiled-once highlights query per language,
//	                            run over the root tree and the injected trees
//
// # Concurrency contract
//
// Parse, Lookup and Languages may be called from any goroutine at the same
// time. A *Tree is not safe for concurrent use, not even for reading: the
// binding caches node wrappers in a map that reads fill in. A Tree belongs to
// one goroutine at a time. To let another goroutine use a tree (for example a
// worker that reparses against the editor's current tree) call Clone on the
// owning goroutine and hand over the clone; clones share immutable tree-sitter
// nodes by reference count, so Clone is O(1).
//
// Parse never modifies Request.Prior: it edits a private copy, so a prior
// tree stays valid after a cancelled or failed reparse and can be reused.
//
// # Cancellation
//
// Cancelling the context aborts a parse that is already running: tree-sitter
// polls a cancellation flag every hundred or so parse operations, which ends
// the parse well under a millisecond after the context ends. The binding's own
// context watcher can set the flag after a parse has already finished (its
// goroutine races the end of the parse), which would make the next parse on
// that parser fail; Parse therefore drives the flag itself and clears it
// before the parser goes back to the pool.
//
// # Binding defects worked around
//
//   - Tree.Edit in the binding passes the old end point as the new end point,
//     so node positions of an edited tree are wrong until it is reparsed.
//     Parse never exposes an edited-but-unparsed tree, and the reparse
//     recomputes every changed extent from the text (tested against a fresh
//     parse).
//   - A parser whose parse was cancelled resumes that parse on its next call
//     unless it is Reset; pooled parsers are Reset before reuse.
//   - The binding's markdown helper computes the inline grammar's ranges
//     wrongly and copies the whole document for every inline node; this
//     package computes the ranges itself and feeds the text in chunks.
package syntax
