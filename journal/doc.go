// Package journal keeps the unsaved edits of an editor's buffers on disk,
// so that a crash (a kill -9, a power cut) loses at most the last moments
// of typing: one append-only journal per file, in the user's state
// directory ([Dir]: $XDG_STATE_HOME/pmacs/journal, by default
// ~/.local/state/pmacs/journal; the directory is made 0700 and every
// journal 0600).
//
// A journal is named for the file it belongs to ([Name]: a hash of the
// absolute path), and its first record, the header, says which file that is
// and what the file held when the edits began (its size, modification time
// and SHA-256: the base). What follows is a sequence of records, each
// framed by its length and a CRC-32C of its bytes:
//
//	file   = magic header-record record*
//	record = u32le length | u32le crc32c(body) | body
//	body   = 'H' header | 'S' snapshot text | 'E' edit
//
// An edit replaces a range of rows and byte columns of the text as it was
// after the records before it (the editor's own coordinates: rows without
// their line breaks), and may carry the line endings of the rows it
// inserts. A snapshot is the whole text as the file would be saved: the
// records before it no longer matter, and a journal that starts with one
// needs no base. A small file is journalled as a snapshot each time; a
// large one appends its edits and is compacted into a snapshot when the
// log grows large against the file.
//
// Reading never trusts the bytes. A record cut short by a crash in the
// middle of an append (its length runs past the end, or its checksum does
// not match) ends the journal: it and anything after it are dropped and
// reported ([Journal.Dropped]), never applied in part. A record whose
// checksum holds but whose body does not parse, a header that names a
// relative path, or a journal whose name is not the one its header's path
// gives, is an error matching [ErrCorrupt]. No length read from the file
// allocates more than the file holds.
//
// # Concurrency
//
// The functions are safe to call from any goroutine; two writers of one
// journal must take turns (the editor keeps one write per buffer in
// flight). The encoders only append to the slice they are given.
package journal
