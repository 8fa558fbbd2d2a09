package runtime

import (
	"fmt"

	"github.com/vmihailenco/msgpack/v5"

	"github.com/pmacs-go/pmacs-go/bus/wire"

	"github.com/pmacs-go/pmacs-go/fsops"
	"github.com/pmacs-go/pmacs-go/grep"
)

// A grep match is [file, line, text, start, end, spans] with spans a flat
// array [s0, e0, s1, e1, ...].
func encodeMatches(e *msgpack.Encoder, ms []grep.Match) error {
	if err := e.EncodeArrayLen(len(ms)); err != nil {
		return err
	}
	for i := range ms {
		m := &ms[i]
		if err := e.EncodeArrayLen(6); err != nil {
			return err
		}
		if err := e.EncodeString(m.File); err != nil {
			return err
		}
		if err := e.EncodeUint(uint64(m.Line)); err != nil {
			return err
		}
		if err := e.EncodeString(m.Text); err != nil {
			return err
		}
		if err := e.EncodeUint(uint64(m.MatchStart)); err != nil {
			return err
		}
		if err := e.EncodeUint(uint64(m.MatchEnd)); err != nil {
			return err
		}
		if err := e.EncodeArrayLen(2 * len(m.Spans)); err != nil {
			return err
		}
		for _, sp := range m.Spans {
			if err := e.EncodeUint(uint64(sp[0])); err != nil {
				return err
			}
			if err := e.EncodeUint(uint64(sp[1])); err != nil {
				return err
			}
		}
	}
	return nil
}

// minMatchBytes is the smallest encoded match: a fixarray header and six
// one-byte fields.
const minMatchBytes = 7

// decodeFile decodes a match's file name, returning last itself (no
// allocation) when the name is the same: a batch holds runs of matches of
// one file, and the main goroutine decodes every batch. buf holds the bytes
// for the comparison; a longer name is decoded as a new string.
func decodeFile(d *msgpack.Decoder, last string, buf []byte) (string, error) {
	n, err := d.DecodeBytesLen()
	if err != nil || n <= 0 {
		return "", err
	}
	if err := wire.CheckClaim(d, "file name", n, 1); err != nil {
		return "", err
	}
	if n > len(buf) {
		b := make([]byte, n)
		if err := d.ReadFull(b); err != nil {
			return "", err
		}
		return string(b), nil
	}
	b := buf[:n]
	if err := d.ReadFull(b); err != nil {
		return "", err
	}
	if string(b) == last {
		return last, nil
	}
	return string(b), nil
}

func decodeMatches(d *msgpack.Decoder) ([]grep.Match, error) {
	n, err := wire.DecodeLen(d, minMatchBytes)
	if err != nil {
		return nil, err
	}
	out := make([]grep.Match, 0, min(n, 1024))
	var file string    // the last file named: a batch names each file many times in a row
	var name [256]byte // where a file name is read to be compared with it
	var slab [][2]uint32
	for range n {
		var m grep.Match
		fields, err := d.DecodeArrayLen()
		if err != nil {
			return nil, err
		}
		if fields != 6 {
			return nil, fmt.Errorf("match: %d fields, want 6", fields)
		}
		if m.File, err = decodeFile(d, file, name[:]); err != nil {
			return nil, err
		}
		file = m.File
		if m.Line, err = d.DecodeUint32(); err != nil {
			return nil, err
		}
		if m.Text, err = d.DecodeString(); err != nil {
			return nil, err
		}
		if m.MatchStart, err = d.DecodeUint32(); err != nil {
			return nil, err
		}
		if m.MatchEnd, err = d.DecodeUint32(); err != nil {
			return nil, err
		}
		flat, err := wire.DecodeLen(d, 1)
		if err != nil {
			return nil, err
		}
		if flat%2 != 0 {
			return nil, fmt.Errorf("match spans: odd length %d", flat)
		}
		if flat > 0 {
			// The spans of a batch share a few allocations (a match has one
			// or two): a slab is cut into each match's spans, with a full
			// slice expression so that no match can append into the next.
			k := flat / 2
			if cap(slab)-len(slab) < k {
				slab = make([][2]uint32, 0, max(k, 2*min(n, 1024)))
			}
			m.Spans = slab[len(slab) : len(slab)+k : len(slab)+k]
			slab = slab[:len(slab)+k]
			for i := range m.Spans {
				if m.Spans[i][0], err = d.DecodeUint32(); err != nil {
					return nil, err
				}
				if m.Spans[i][1], err = d.DecodeUint32(); err != nil {
					return nil, err
				}
			}
		}
		out = append(out, m)
	}
	return out, nil
}

// An entry is [name, kind, size, mode, mtime, target].
func encodeEntry(e *msgpack.Encoder, ent *fsops.Entry) error {
	if err := e.EncodeArrayLen(6); err != nil {
		return err
	}
	if err := e.EncodeString(ent.Name); err != nil {
		return err
	}
	if err := e.EncodeUint(uint64(ent.Kind)); err != nil {
		return err
	}
	if err := e.EncodeInt(ent.Size); err != nil {
		return err
	}
	if err := e.EncodeUint(uint64(ent.Mode)); err != nil {
		return err
	}
	if err := e.EncodeInt(ent.MTime); err != nil {
		return err
	}
	return e.EncodeString(ent.Target)
}

func decodeEntry(d *msgpack.Decoder) (fsops.Entry, error) {
	var ent fsops.Entry
	n, err := d.DecodeArrayLen()
	if err != nil {
		return ent, err
	}
	if n != 6 {
		return ent, fmt.Errorf("entry: %d fields, want 6", n)
	}
	if ent.Name, err = d.DecodeString(); err != nil {
		return ent, err
	}
	kind, err := d.DecodeUint8()
	if err != nil {
		return ent, err
	}
	if kind > uint8(fsops.KindOther) {
		return ent, fmt.Errorf("entry: unknown kind %d", kind)
	}
	ent.Kind = fsops.Kind(kind)
	if ent.Size, err = d.DecodeInt64(); err != nil {
		return ent, err
	}
	if ent.Mode, err = d.DecodeUint32(); err != nil {
		return ent, err
	}
	if ent.MTime, err = d.DecodeInt64(); err != nil {
		return ent, err
	}
	ent.Target, err = d.DecodeString()
	return ent, err
}

// A listing is [entries, errors] with each error [name, message, errno].
// Entry errors cross as text: on the main goroutine they become *JobError
// values carrying the same message and errno name.
func encodeListing(e *msgpack.Encoder, l *fsops.Listing) error {
	if err := e.EncodeArrayLen(2); err != nil {
		return err
	}
	if err := e.EncodeArrayLen(len(l.Entries)); err != nil {
		return err
	}
	for i := range l.Entries {
		if err := encodeEntry(e, &l.Entries[i]); err != nil {
			return err
		}
	}
	if err := e.EncodeArrayLen(len(l.Errors)); err != nil {
		return err
	}
	for _, ee := range l.Errors {
		if err := e.EncodeArrayLen(3); err != nil {
			return err
		}
		msg := ""
		if ee.Err != nil {
			msg = ee.Err.Error()
		}
		for _, s := range []string{ee.Name, msg, fsops.Errno(ee.Err)} {
			if err := e.EncodeString(s); err != nil {
				return err
			}
		}
	}
	return nil
}

// maxWireEntries bounds a decoded listing; directories beyond a few million
// entries are not something an editor lists in one job.
const maxWireEntries = 1 << 24

func decodeListing(d *msgpack.Decoder) (*fsops.Listing, error) {
	n, err := d.DecodeArrayLen()
	if err != nil {
		return nil, err
	}
	if n != 2 {
		return nil, fmt.Errorf("listing: %d fields, want 2", n)
	}
	l := new(fsops.Listing)
	count, err := d.DecodeArrayLen()
	if err != nil {
		return nil, err
	}
	if count < 0 || count > maxWireEntries {
		return nil, fmt.Errorf("listing: %d entries exceeds %d", count, maxWireEntries)
	}
	l.Entries = make([]fsops.Entry, 0, min(count, 4096))
	for range count {
		ent, err := decodeEntry(d)
		if err != nil {
			return nil, err
		}
		l.Entries = append(l.Entries, ent)
	}
	count, err = d.DecodeArrayLen()
	if err != nil {
		return nil, err
	}
	if count < 0 || count > maxWireEntries {
		return nil, fmt.Errorf("listing: %d errors exceeds %d", count, maxWireEntries)
	}
	for range count {
		fields, err := d.DecodeArrayLen()
		if err != nil {
			return nil, err
		}
		if fields != 3 {
			return nil, fmt.Errorf("listing error: %d fields, want 3", fields)
		}
		var s [3]string
		for i := range s {
			if s[i], err = d.DecodeString(); err != nil {
				return nil, err
			}
		}
		l.Errors = append(l.Errors, fsops.EntryError{Name: s[0], Err: &JobError{Message: s[1], Code: s[2]}})
	}
	return l, nil
}
