package trust

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"sync"
)

// LocalBin is the folder-relative directory whose programs the editor runs
// (the language server before PATH) once the folder is trusted.
const LocalBin = ".bin"

// Bounds on what Allowed reads, so a hostile checkout cannot make the
// editor hash without end: a folder past them cannot be trusted.
const (
	maxItems    = 1024
	maxItemSize = 1 << 30
)

// ErrTooLarge is returned (wrapped) when a folder holds more project-local
// files than Allowed reads, or one too large to hash.
var ErrTooLarge = errors.New("trust: too much to hash")

// Item is one project-local file a folder's trust covers.
type Item struct {
	// Name is the path in the folder, slash-separated (".bin/gopls").
	Name string
	// Mode is the mode of the file the name leads to (a symlink
	// followed): its type and permission bits.
	Mode fs.FileMode
	// Link is the symlink's target as written, "" for a file that is not
	// a symlink.
	Link string
	// Hash is "sha256:" and the hex digest of the file's contents; "dir"
	// for a directory, "missing" for a dangling link, "special" for a
	// device, FIFO or socket (none of which is read).
	Hash string
}

// line is the item as it enters the folder's digest and the database.
func (it Item) line() string {
	return fmt.Sprintf("%s\t%s\t%s\t%s", it.Name, it.Mode, it.Link, it.Hash)
}

// Allowed lists what trusting folder allows: every entry of
// <folder>/.bin (LocalBin), with its mode, link target and contents
// hashed, sorted by name. It is the one definition of that set: a feature
// that makes the editor use more from a folder (a project configuration
// file, say) adds it here, so that trusting covers it and changing it
// after the trust is noticed. A folder without .bin allows nothing.
func Allowed(folder string) ([]Item, error) {
	return allowed(folder, hashFile)
}

// allowed is Allowed with the hash function a DB caches; a nil hash lists
// the items without reading their contents (their Hash is "").
func allowed(folder string, hash func(path string, fi fs.FileInfo) (string, error)) ([]Item, error) {
	bin := filepath.Join(folder, LocalBin)
	// A .bin that is missing or not a directory (a dangling link, a file)
	// holds no program the editor would run.
	if st, err := os.Stat(bin); errors.Is(err, fs.ErrNotExist) || err == nil && !st.IsDir() {
		return nil, nil
	}
	entries, err := os.ReadDir(bin)
	if err != nil {
		return nil, fmt.Errorf("trust: list %s: %w", bin, err)
	}
	if len(entries) > maxItems {
		return nil, fmt.Errorf("%w: %s holds %d entries (at most %d are read)", ErrTooLarge, bin, len(entries), maxItems)
	}
	items := make([]Item, 0, len(entries))
	for _, d := range entries {
		p := filepath.Join(bin, d.Name())
		it := Item{Name: LocalBin + "/" + d.Name()}
		if d.Type()&fs.ModeSymlink != 0 {
			if it.Link, err = os.Readlink(p); err != nil {
				return nil, fmt.Errorf("trust: read link %s: %w", p, err)
			}
		}
		fi, err := os.Stat(p)
		switch {
		case errors.Is(err, fs.ErrNotExist) && it.Link != "":
			it.Hash = "missing"
		case err != nil:
			return nil, fmt.Errorf("trust: stat %s: %w", p, err)
		case fi.IsDir():
			it.Mode, it.Hash = fi.Mode(), "dir"
		case !fi.Mode().IsRegular():
			it.Mode, it.Hash = fi.Mode(), "special"
		default:
			it.Mode = fi.Mode()
			if hash == nil {
				break
			}
			if it.Hash, err = hash(p, fi); err != nil {
				return nil, err
			}
		}
		items = append(items, it)
	}
	sort.Slice(items, func(i, j int) bool { return items[i].Name < items[j].Name })
	return items, nil
}

// hashFile hashes the regular file at p, which Stat described as fi. It
// opens without blocking (a FIFO swapped in after the Stat cannot hang
// the caller) and checks that what it opened is still a regular file.
func hashFile(p string, fi fs.FileInfo) (string, error) {
	if fi.Size() > maxItemSize {
		return "", fmt.Errorf("%w: %s is %d bytes (at most %d are hashed)", ErrTooLarge, p, fi.Size(), maxItemSize)
	}
	f, err := openNoBlock(p)
	if err != nil {
		return "", fmt.Errorf("trust: read %s: %w", p, err)
	}
	defer f.Close()
	if st, err := f.Stat(); err != nil || !st.Mode().IsRegular() {
		return "", fmt.Errorf("trust: read %s: no longer a regular file", p)
	}
	h := sha256.New()
	if _, err := io.Copy(h, io.LimitReader(f, maxItemSize+1)); err != nil {
		return "", fmt.Errorf("trust: read %s: %w", p, err)
	}
	return "sha256:" + hex.EncodeToString(h.Sum(nil)), nil
}

// digest is the hash of a folder's whole allowed set.
func digest(items []Item) string {
	h := sha256.New()
	for _, it := range items {
		io.WriteString(h, it.line())
		io.WriteString(h, "\n")
	}
	return "sha256:" + hex.EncodeToString(h.Sum(nil))
}

// hashCache remembers file hashes by path and stat identity, so a folder's
// status costs a stat per file after its first read.
type hashCache struct {
	mu sync.Mutex
	m  map[string]cachedHash
}

type cachedHash struct {
	id   string
	hash string
}

// maxCached bounds the cache; past it the cache starts again.
const maxCached = 4096

func (c *hashCache) hash(p string, fi fs.FileInfo) (string, error) {
	id := fileID(fi)
	c.mu.Lock()
	got, ok := c.m[p]
	c.mu.Unlock()
	if ok && id != "" && got.id == id {
		return got.hash, nil
	}
	h, err := hashFile(p, fi)
	if err != nil || id == "" {
		return h, err
	}
	c.mu.Lock()
	if c.m == nil || len(c.m) >= maxCached {
		c.m = map[string]cachedHash{}
	}
	c.m[p] = cachedHash{id: id, hash: h}
	c.mu.Unlock()
	return h, nil
}

// changes says how items differ from what was allowed (name to line).
func changes(was map[string]string, now []Item) []string {
	var out []string
	seen := map[string]bool{}
	for _, it := range now {
		seen[it.Name] = true
		old, ok := was[it.Name]
		switch {
		case !ok:
			out = append(out, it.Name+" added")
		case old != it.line():
			out = append(out, it.Name+" changed")
		}
	}
	var gone []string
	for name := range was {
		if !seen[name] {
			gone = append(gone, name+" removed")
		}
	}
	sort.Strings(gone)
	return append(out, gone...)
}
