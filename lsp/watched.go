package lsp

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"

	"github.com/pmacs-go/pmacs-go/fileuri"
)

// File watching for the server (workspace/didChangeWatchedFiles): a server
// registers watchers, each a glob and the kinds of change it wants; the
// host watches the disk (the client starts no watch of its own) and hands
// the changes to DidChangeWatchedFiles, which keeps those some watcher
// wants and tells the server. The globs are compiled when the server
// registers them, never per change.

// MethodDidChangeWatchedFiles is the notification a server registers file
// watchers for.
const MethodDidChangeWatchedFiles = "workspace/didChangeWatchedFiles"

// MaxFileEvents bounds the changes one didChangeWatchedFiles notification
// carries; more go out as further notifications.
const MaxFileEvents = 1024

// FileChangeType is the kind of a change to a watched file, as the
// protocol numbers it.
type FileChangeType int

const (
	FileCreated FileChangeType = 1
	FileChanged FileChangeType = 2
	FileDeleted FileChangeType = 3
)

// The WatchKind bits a watcher asks for; a watcher without kind wants all
// three.
const (
	watchCreate = 1
	watchChange = 2
	watchDelete = 4
	watchAll    = watchCreate | watchChange | watchDelete
)

// FileChange is a change to a file on disk the host saw.
type FileChange struct {
	// Path is the file's absolute path.
	Path string
	Type FileChangeType
}

// FileWatcher is one watcher a server registered, as compiled.
type FileWatcher struct {
	// ID is the id of the registration it came with.
	ID string
	// Glob is the pattern; for a relative pattern, matched against the
	// path beneath Base.
	Glob *Glob
	// Base is a relative pattern's base directory, "" for a pattern
	// matched against the whole path.
	Base string
	// Kind is the WatchKind bitmask: 1 create, 2 change, 4 delete.
	Kind int
}

func (w *FileWatcher) wants(ch FileChange) bool {
	bit := watchDelete
	switch ch.Type {
	case FileCreated:
		bit = watchCreate
	case FileChanged:
		bit = watchChange
	}
	if w.Kind&bit == 0 {
		return false
	}
	p := filepath.ToSlash(ch.Path)
	if w.Base != "" {
		base := strings.TrimSuffix(filepath.ToSlash(w.Base), "/")
		if !strings.HasPrefix(p, base+"/") {
			return false
		}
		p = p[len(base)+1:]
	}
	return w.Glob.Match(p)
}

// compileWatchers reads a didChangeWatchedFiles registration's options:
// {watchers: [{globPattern, kind}]}, globPattern a string or a relative
// pattern {baseUri, pattern} (baseUri a URI or a workspace folder {uri,
// name}). A glob that does not compile, a base that names no local file
// or a kind outside 1..7 refuses the registration, saying which watcher.
func compileWatchers(id string, opts jsontext.Value) ([]FileWatcher, error) {
	var o struct {
		Watchers []struct {
			GlobPattern jsontext.Value `json:"globPattern"`
			Kind        *int           `json:"kind"`
		} `json:"watchers"`
	}
	if len(opts) == 0 {
		return nil, fmt.Errorf("%s needs registerOptions with watchers", MethodDidChangeWatchedFiles)
	}
	if err := json.Unmarshal(opts, &o, lenient); err != nil {
		return nil, fmt.Errorf("%s's options: %w", MethodDidChangeWatchedFiles, err)
	}
	out := make([]FileWatcher, 0, len(o.Watchers))
	for i, w := range o.Watchers {
		fw := FileWatcher{ID: id, Kind: watchAll}
		if w.Kind != nil {
			if *w.Kind < 1 || *w.Kind > watchAll {
				return nil, fmt.Errorf("watcher %d: kind %d is not a WatchKind (1 to 7)", i+1, *w.Kind)
			}
			fw.Kind = *w.Kind
		}
		pattern, base, err := globPattern(w.GlobPattern)
		if err != nil {
			return nil, fmt.Errorf("watcher %d: %w", i+1, err)
		}
		if fw.Glob, err = CompileGlob(pattern); err != nil {
			return nil, fmt.Errorf("watcher %d: %w", i+1, err)
		}
		fw.Base = base
		out = append(out, fw)
	}
	return out, nil
}

// globPattern reads a GlobPattern: a string, or {baseUri, pattern}.
func globPattern(v jsontext.Value) (pattern, base string, err error) {
	if err := json.Unmarshal(v, &pattern, lenient); err == nil {
		return pattern, "", nil
	}
	var rel struct {
		BaseURI jsontext.Value `json:"baseUri"`
		Pattern string         `json:"pattern"`
	}
	if err := json.Unmarshal(v, &rel, lenient); err != nil {
		return "", "", fmt.Errorf("globPattern is neither a string nor a RelativePattern: %w", err)
	}
	var u string
	if err := json.Unmarshal(rel.BaseURI, &u, lenient); err != nil {
		var folder struct {
			URI string `json:"uri"`
		}
		if err := json.Unmarshal(rel.BaseURI, &folder, lenient); err != nil || folder.URI == "" {
			return "", "", fmt.Errorf("a RelativePattern's baseUri is neither a URI nor a workspace folder")
		}
		u = folder.URI
	}
	base, err = fileuri.ToPath(u)
	if err != nil {
		return "", "", fmt.Errorf("a RelativePattern's baseUri: %w", err)
	}
	return rel.Pattern, base, nil
}

// FileWatchers returns the watchers the server has registered, in the
// order it registered them; none once the client is stopping or gone, so
// a host stops watching for it. Main goroutine only.
func (c *Client) FileWatchers() []FileWatcher {
	if c.state == stopping || c.state == dead {
		return nil
	}
	var out []FileWatcher
	for _, r := range c.regs {
		out = append(out, r.watchers...)
	}
	return out
}

// TakeWatchersChanged reports whether FileWatchers may have changed since
// it was last called: a registration or unregistration of file watchers,
// a restarted server (which registers anew) or a stop. Main goroutine
// only.
func (c *Client) TakeWatchersChanged() bool {
	changed := c.watchersChanged
	c.watchersChanged = false
	return changed
}

// DidChangeWatchedFiles tells the server of the changes some watcher it
// registered wants (its glob matches the path and its kind the change),
// each once, in notifications of at most MaxFileEvents changes; it returns
// how many it sent. Without watchers it sends nothing. Main goroutine
// only.
func (c *Client) DidChangeWatchedFiles(changes []FileChange) (int, error) {
	ws := c.FileWatchers()
	if len(ws) == 0 {
		return 0, nil
	}
	type event struct {
		URI  string         `json:"uri"`
		Type FileChangeType `json:"type"`
	}
	var batch []event
	sent := 0
	flush := func() error {
		if len(batch) == 0 {
			return nil
		}
		if err := c.Notify(MethodDidChangeWatchedFiles, map[string]any{"changes": batch}); err != nil {
			return err
		}
		sent += len(batch)
		batch = batch[:0]
		return nil
	}
	for _, ch := range changes {
		if ch.Type < FileCreated || ch.Type > FileDeleted {
			return sent, fmt.Errorf("lsp: %s: change type %d of %s is not 1, 2 or 3", MethodDidChangeWatchedFiles, ch.Type, ch.Path)
		}
		for i := range ws {
			if ws[i].wants(ch) {
				batch = append(batch, event{URI: string(docURI(ch.Path)), Type: ch.Type})
				break
			}
		}
		if len(batch) == MaxFileEvents {
			if err := flush(); err != nil {
				return sent, err
			}
		}
	}
	return sent, flush()
}
