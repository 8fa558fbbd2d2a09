package fsjob

import (
	"fmt"

	"github.com/vmihailenco/msgpack/v5"

	"github.com/pmacs-go/pmacs-go/fsops"
	"github.com/pmacs-go/pmacs-go/runtime"
)

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
		l.Errors = append(l.Errors, fsops.EntryError{Name: s[0], Err: &runtime.JobError{Message: s[1], Code: s[2]}})
	}
	return l, nil
}
