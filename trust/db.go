package trust

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sync"
	"time"
)

// ErrCorrupt is returned (wrapped, with the file's path and what is wrong)
// when the database file is not a trust database this package can read:
// invalid JSON, another shape, another version, or a file others may
// write. The package then neither trusts anything from it nor overwrites
// it.
var ErrCorrupt = errors.New("trust: not a trust database")

// ErrLocked is returned (wrapped, with the lock file and the errno) by a
// change that waited 2 s for another process to release the database's
// lock: a process that hung holding it. Nothing was changed; the user
// can try again, or end that process.
var ErrLocked = errors.New("trust: the database is locked by another process")

// fileVersion is the version of the file's shape this package writes.
const fileVersion = 1

// maxFileSize bounds the database file read: a file past it is not one
// this package wrote.
const maxFileSize = 64 << 20

// Decision values in the file.
const (
	decisionAllow = "allow"
	decisionDeny  = "deny"
)

// DB is the user's trust database: one JSON file. The zero DB is not
// usable; make one with Open or OpenDefault.
type DB struct {
	path  string
	mu    sync.Mutex // serialises this process's reads and changes
	cache hashCache
}

// DefaultPath is where the user's decisions live:
// $XDG_STATE_HOME/pmacs/trust.json, or ~/.local/state/pmacs/trust.json when
// XDG_STATE_HOME is unset or relative (the XDG spec says to ignore a
// relative one).
func DefaultPath() (string, error) {
	dir := os.Getenv("XDG_STATE_HOME")
	if !filepath.IsAbs(dir) {
		home, err := os.UserHomeDir()
		if err != nil {
			return "", fmt.Errorf("trust: no state directory (XDG_STATE_HOME and HOME are unset): %w", err)
		}
		dir = filepath.Join(home, ".local", "state")
	}
	return filepath.Join(dir, "pmacs", "trust.json"), nil
}

// Open returns the database kept in the file at path, which must be
// absolute. It touches nothing: a missing file is an empty database, made
// on the first decision.
func Open(path string) (*DB, error) {
	if !filepath.IsAbs(path) {
		return nil, fmt.Errorf("trust: database path %q is not absolute", path)
	}
	return &DB{path: filepath.Clean(path)}, nil
}

// OpenDefault opens the database at DefaultPath.
func OpenDefault() (*DB, error) {
	p, err := DefaultPath()
	if err != nil {
		return nil, err
	}
	return Open(p)
}

// Path is the database file's path.
func (db *DB) Path() string { return db.path }

// file is the database file's shape.
type file struct {
	Version int               `json:"version"`
	Folders map[string]*entry `json:"folders"`
}

// entry is one folder's decision. Items keep each allowed item's line, so
// a Changed report can say what changed.
type entry struct {
	Decision string            `json:"decision"`
	Hash     string            `json:"hash,omitempty"`
	Items    map[string]string `json:"items,omitempty"`
	Time     time.Time         `json:"time"`
}

// RealFolder is the key a folder's decision is stored under: its absolute
// path with every symlink resolved. It fails for a path that is not an
// existing directory.
func RealFolder(folder string) (string, error) {
	abs, err := filepath.Abs(folder)
	if err != nil {
		return "", fmt.Errorf("trust: folder %s: %w", folder, err)
	}
	real, err := filepath.EvalSymlinks(abs)
	if err != nil {
		return "", fmt.Errorf("trust: folder %s: %w", folder, err)
	}
	st, err := os.Stat(real)
	if err != nil {
		return "", fmt.Errorf("trust: folder %s: %w", folder, err)
	}
	if !st.IsDir() {
		return "", fmt.Errorf("trust: folder %s: not a directory", folder)
	}
	return real, nil
}

// Status reports where folder stands. A folder that does not exist is
// Untrusted and allows nothing. On an error reading the database or the
// folder's files, the report still names the folder (and what it allows,
// when that could be read) with Status Untrusted: an error never trusts.
func (db *DB) Status(folder string) (Report, error) {
	key, err := RealFolder(folder)
	if err != nil {
		if abs, aerr := filepath.Abs(folder); aerr == nil && errors.Is(err, fs.ErrNotExist) {
			return Report{Folder: abs, Status: Untrusted}, nil
		}
		return Report{Folder: folder, Status: Untrusted}, err
	}
	db.mu.Lock()
	f, err := db.load()
	db.mu.Unlock()
	r := Report{Folder: key, Status: Untrusted}
	if err != nil {
		r.Items, _ = allowed(key, nil)
		return r, err
	}
	e := f.Folders[key]
	switch {
	case e != nil && e.Decision == decisionDeny:
		r.Status, r.Decided = Denied, e.Time
		return r, nil
	case e == nil:
		// Nothing to compare with: the names will do, and the first
		// open of a checkout reads none of its programs.
		r.Items, err = allowed(key, nil)
		return r, err
	}
	if r.Items, err = allowed(key, db.cache.hash); err != nil {
		return r, err
	}
	r.Decided = e.Time
	if digest(r.Items) == e.Hash {
		r.Status = Trusted
		return r, nil
	}
	r.Status, r.Changes = Changed, changes(e.Items, r.Items)
	if len(r.Changes) == 0 {
		r.Changes = []string{"the recorded hash differs"}
	}
	return r, nil
}

// Allow trusts folder as its contents are now: it records the hash of what
// the folder allows, and returns the folder's report.
func (db *DB) Allow(folder string) (Report, error) {
	key, err := RealFolder(folder)
	if err != nil {
		return Report{Folder: folder, Status: Untrusted}, err
	}
	items, err := allowed(key, db.cache.hash)
	if err != nil {
		return Report{Folder: key, Status: Untrusted}, fmt.Errorf("trust: cannot trust %s: %w", key, err)
	}
	now := time.Now().UTC()
	e := &entry{Decision: decisionAllow, Hash: digest(items), Items: map[string]string{}, Time: now}
	for _, it := range items {
		e.Items[it.Name] = it.line()
	}
	if err := db.change(func(f *file) { f.Folders[key] = e }); err != nil {
		return Report{Folder: key, Status: Untrusted, Items: items}, err
	}
	return Report{Folder: key, Status: Trusted, Items: items, Decided: now}, nil
}

// Deny refuses folder, whatever its contents, until the decision is
// removed or replaced.
func (db *DB) Deny(folder string) (Report, error) {
	key, err := RealFolder(folder)
	if err != nil {
		return Report{Folder: folder, Status: Untrusted}, err
	}
	now := time.Now().UTC()
	if err := db.change(func(f *file) { f.Folders[key] = &entry{Decision: decisionDeny, Time: now} }); err != nil {
		return Report{Folder: key, Status: Untrusted}, err
	}
	return Report{Folder: key, Status: Denied, Decided: now}, nil
}

// Remove forgets folder's decision: it is untrusted, as if never decided.
// A folder that no longer exists is forgotten by the path given, made
// absolute.
func (db *DB) Remove(folder string) (Report, error) {
	key, err := RealFolder(folder)
	if err != nil {
		abs, aerr := filepath.Abs(folder)
		if aerr != nil || !errors.Is(err, fs.ErrNotExist) {
			return Report{Folder: folder, Status: Untrusted}, err
		}
		key = abs
	}
	if err := db.change(func(f *file) { delete(f.Folders, key) }); err != nil {
		return Report{Folder: key, Status: Untrusted}, err
	}
	r := Report{Folder: key, Status: Untrusted}
	r.Items, _ = allowed(key, nil)
	return r, nil
}

// change applies decide to the database under both locks and writes it.
// A database that cannot be read is never overwritten.
func (db *DB) change(decide func(f *file)) error {
	db.mu.Lock()
	defer db.mu.Unlock()
	dir := filepath.Dir(db.path)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("trust: make %s: %w", dir, err)
	}
	unlock, err := lockFile(db.path + ".lock")
	if err != nil {
		return fmt.Errorf("trust: lock %s: %w", db.path, err)
	}
	defer unlock()
	f, err := db.load()
	if err != nil {
		return err
	}
	decide(f)
	return db.write(f)
}

var hashRE = regexp.MustCompile(`^sha256:[0-9a-f]{64}$`)

// load reads the database; a missing file is an empty one.
func (db *DB) load() (*file, error) {
	fh, err := os.Open(db.path)
	if errors.Is(err, fs.ErrNotExist) {
		return &file{Version: fileVersion, Folders: map[string]*entry{}}, nil
	}
	if err != nil {
		return nil, fmt.Errorf("trust: read %s: %w", db.path, err)
	}
	defer fh.Close()
	st, err := fh.Stat()
	if err != nil {
		return nil, fmt.Errorf("trust: read %s: %w", db.path, err)
	}
	if !st.Mode().IsRegular() {
		return nil, db.corrupt("not a regular file")
	}
	if why := othersMayWrite(st); why != "" {
		return nil, db.corrupt(why)
	}
	data, err := io.ReadAll(io.LimitReader(fh, maxFileSize+1))
	if err != nil {
		return nil, fmt.Errorf("trust: read %s: %w", db.path, err)
	}
	if len(data) > maxFileSize {
		return nil, db.corrupt(fmt.Sprintf("larger than %d bytes", maxFileSize))
	}
	var head map[string]json.RawMessage
	if err := json.Unmarshal(data, &head); err != nil {
		return nil, db.corrupt(fmt.Sprintf("not a JSON object: %v", err))
	}
	var version int
	if raw, ok := head["version"]; !ok {
		return nil, db.corrupt("no version: written by another program")
	} else if err := json.Unmarshal(raw, &version); err != nil || version != fileVersion {
		return nil, db.corrupt(fmt.Sprintf("version %s, this editor reads %d", raw, fileVersion))
	}
	var f file
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&f); err != nil {
		return nil, db.corrupt(err.Error())
	}
	if f.Folders == nil {
		f.Folders = map[string]*entry{}
	}
	for key, e := range f.Folders {
		switch {
		case !filepath.IsAbs(key) || filepath.Clean(key) != key:
			return nil, db.corrupt(fmt.Sprintf("folder %q is not a clean absolute path", key))
		case e == nil:
			return nil, db.corrupt(fmt.Sprintf("folder %s has no decision", key))
		case e.Decision == decisionDeny:
		case e.Decision == decisionAllow && hashRE.MatchString(e.Hash):
		case e.Decision == decisionAllow:
			return nil, db.corrupt(fmt.Sprintf("folder %s: hash %q is not a sha256 digest", key, e.Hash))
		default:
			return nil, db.corrupt(fmt.Sprintf("folder %s: decision %q is neither allow nor deny", key, e.Decision))
		}
	}
	return &f, nil
}

func (db *DB) corrupt(why string) error {
	return fmt.Errorf("%w (%s: %s); move it away to start afresh", ErrCorrupt, db.path, why)
}

// write replaces the database file atomically: a reader sees the old file
// or the new one, never a part.
func (db *DB) write(f *file) (err error) {
	f.Version = fileVersion
	data, err := json.MarshalIndent(f, "", "  ")
	if err != nil {
		return fmt.Errorf("trust: encode %s: %w", db.path, err)
	}
	dir := filepath.Dir(db.path)
	tmp, err := os.CreateTemp(dir, ".trust-*.json")
	if err != nil {
		return fmt.Errorf("trust: write %s: %w", db.path, err)
	}
	defer func() {
		if err != nil {
			tmp.Close()
			os.Remove(tmp.Name())
		}
	}()
	if err = tmp.Chmod(0o600); err != nil {
		return fmt.Errorf("trust: write %s: %w", db.path, err)
	}
	if _, err = tmp.Write(append(data, '\n')); err != nil {
		return fmt.Errorf("trust: write %s: %w", db.path, err)
	}
	if err = tmp.Sync(); err != nil {
		return fmt.Errorf("trust: write %s: %w", db.path, err)
	}
	if err = tmp.Close(); err != nil {
		return fmt.Errorf("trust: write %s: %w", db.path, err)
	}
	if err = os.Rename(tmp.Name(), db.path); err != nil {
		return fmt.Errorf("trust: write %s: %w", db.path, err)
	}
	// The rename is durable once the directory is: a crash after it
	// leaves the new file, not an empty name.
	if d, derr := os.Open(dir); derr == nil {
		d.Sync()
		d.Close()
	}
	return nil
}
