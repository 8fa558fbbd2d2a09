// Package bus carries MessagePack envelopes from worker goroutines to the
// editor's main goroutine.
//
// # Topology
//
//	worker goroutines ──Workers.Send──► queue ──Main.Drain──► main goroutine
//	                                      │
//	                                      └─► Main.Ready(): one token per drain cycle
//
// An [Envelope] is a topic plus a MessagePack payload. A [Registry] maps each
// topic to the Go type its payload decodes into, so a reply can never be
// decoded as the wrong shape: registering a topic twice, sending or decoding
// an unregistered topic, and decoding a malformed payload are all error
// values, never panics.
//
// [NewPair] returns the two ends of one queue. The worker end ([Workers]) is
// safe for any number of goroutines. The main end ([Main]) belongs to the
// goroutine that runs the editor loop: it drains without blocking and offers
// a ready channel for a select; however many envelopes arrive between two
// drains, the loop is woken once.
//
// # Flow control
//
// The queue itself is unbounded, because a request/reply job sends exactly one
// reply and so is bounded by the number of jobs. Streams are the exception: a
// producer can emit without limit. Each stream therefore holds a [Credit], a
// high-water mark of items in flight that the producer acquires before it
// sends and that the consumer releases when it delivers items onward. A
// producer waiting for credit still sees its context end at once. Sends made
// by the main goroutine itself (Main.Send, for replies that arrive from
// outside the worker pool) never wait.
//
// # Concurrency
//
//   - [Workers] (Send, Close) may be called from any number of goroutines at once.
//   - [Main] belongs to one goroutine, the editor loop: Drain, TryRecv, Send and Decode are
//     called from it alone, since Drain recycles the caller's buffer and the loop relies on
//     seeing every envelope once. (Its queue is locked, so a stray Len from elsewhere is not
//     a data race, only a stale answer.)
//   - A [Registry] is safe for concurrent use; register topics before the first send.
//   - A [Decoder] belongs to one goroutine; make one per goroutine with Registry.NewDecoder.
//   - A [Credit] is safe for concurrent use: the producer Acquires on its worker, the
//     consumer Releases on the main goroutine.
package bus
