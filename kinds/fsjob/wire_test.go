package fsjob

import (
	"bytes"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/vmihailenco/msgpack/v5"

	"github.com/pmacs-go/pmacs-go/fsops"
	"github.com/pmacs-go/pmacs-go/runtime"
)

// roundTrip encodes v with c and decodes it back, as a job's value crosses
// the bus.
func roundTrip(t *testing.T, c runtime.ValueCodec, v any) any {
	t.Helper()
	var buf bytes.Buffer
	require.NoError(t, c.EncodeValue(msgpack.NewEncoder(&buf), v))
	out, err := c.DecodeValue(msgpack.NewDecoder(bytes.NewReader(buf.Bytes())))
	require.NoError(t, err)
	return out
}

// Listings and entries cross the bus unchanged (issue 3: the wire types
// round-trip through the bus).
func TestListingAndEntryRoundTrip(t *testing.T) {
	entry := fsops.Entry{Name: "x", Kind: fsops.KindSymlink, Size: 3, Mode: 0o755, MTime: -5, Target: "../y"}
	require.Equal(t, entry, roundTrip(t, entryCodec{}, entry))
	l := fsops.Listing{Entries: []fsops.Entry{entry, {Name: "z"}}}
	require.Equal(t, l, roundTrip(t, listingCodec{}, l))
}

// Listing errors cross as message plus errno name.
func TestListingErrorsCrossAsMessageAndErrno(t *testing.T) {
	pe := &fsops.PathError{Op: "lstat", Path: "/d/x", Err: fsops.ErrNonUTF8Path}
	out := roundTrip(t, listingCodec{}, fsops.Listing{Errors: []fsops.EntryError{{Name: "x", Err: pe}}}).(fsops.Listing)
	require.Len(t, out.Errors, 1)
	got := out.Errors[0]
	require.Equal(t, "x", got.Name)
	require.Equal(t, &runtime.JobError{Message: pe.Error(), Code: fsops.Errno(pe)}, got.Err)
}

// The *workers* view shows what a read_dir and a stat returned; a failed
// stat shows nothing (its error says why).
func TestSnapshotShowsListingAndEntry(t *testing.T) {
	dir := makeTree(t, map[string]string{"f0.txt": "needle\n", "f1.txt": "x"})
	rt := newRT(t, 2)
	want := map[runtime.JobID]string{}
	take := func(id runtime.JobID) runtime.JobID {
		outcomeOf(t, rt, id)
		return id
	}
	want[take(rt.DispatchReadDir(dir, fsops.PerEntry, DispatchOptions{}))] = "listing of 2 entries"
	want[take(rt.DispatchStat(dir+"/f0.txt", DispatchOptions{}))] = `file "f0.txt", 7 bytes`
	want[take(rt.DispatchStat(dir+"/missing", DispatchOptions{}))] = ""
	got := map[runtime.JobID]string{}
	for _, c := range rt.Snapshot().Completed {
		got[c.ID] = c.Result
	}
	for id, line := range want {
		require.Equal(t, line, got[id], "job %d", id)
	}
}
