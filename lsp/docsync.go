package lsp

import (
	"context"
	"fmt"
	"os"
	"slices"
	"strconv"

	"github.com/go-json-experiment/json/jsontext"
	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/pmacs-go/pmacs-go/workers"
)

// Edit is one incremental change: the text that replaces Range. Positions
// are zero-based lines and columns in the units of the client's Encoding
// (UTF-16 code units unless the server chose UTF-8).
type Edit struct {
	Range protocol.Range
	Text  string
}

type document struct {
	uri        uri.URI
	path       string
	languageID string
	version    int32
	// edits are the changes not sent yet, in didChange's shape.
	edits []map[string]any
	// base and log are the document's text as the client last synced it:
	// base (never modified) with every edit recorded since applied in
	// order. A restarted server is given that text, so unsaved edits
	// survive a crash; applying the log costs the writer goroutine, never
	// the keystroke. compactLog folds the log into a new base on a worker
	// when it grows; gen tells a fold of a base that has been replaced
	// since (by DocumentText at a restart).
	base       []byte
	log        []Edit
	gen        uint64
	compacting bool
}

// compactAfter is how many recorded edits make the log folded into the
// base, bounding the memory a long session of keystrokes holds.
const compactAfter = 1024

// Open sends didOpen for path. A nil text reads the file. languageID is
// the LSP language identifier ("go", "lua", ...). The text is encoded on
// the writer goroutine, so Open keeps it: the caller must not modify it
// afterwards.
func (c *Client) Open(path, languageID string, text []byte) error {
	u := docURI(path)
	if _, ok := c.docs[u]; ok {
		return fmt.Errorf("%w: open %s", ErrAlreadyOpen, path)
	}
	if text == nil {
		b, err := os.ReadFile(path)
		if err != nil {
			return fmt.Errorf("lsp: open %s: %w", path, err)
		}
		text = b
	}
	d := &document{uri: u, path: path, languageID: languageID, version: 1, base: text}
	c.docs[u] = d
	// Kept while open, whatever the bound on the others' (keepDiagnostics).
	c.others.forget(u)
	c.flushChanges()
	// The text is escaped on the writer goroutine: a 100,000-line document
	// takes tens of milliseconds to encode, far over a frame.
	c.out(outFrame{lazy: func() []byte { return didOpenFrame(u, languageID, 1, text) }, n: didOpenSize(text)})
	return nil
}

// reopenDocuments queues a didOpen of every open document for the
// restarted server, ahead of anything made while it starts, with the text
// the client has synced and recorded (base and log), or Config.DocumentText's
// when set. Edits not yet sent are not sent again: the text has them. A
// document whose text cannot be had is closed, with a message saying why.
func (c *Client) reopenDocuments() {
	c.dirtyDocs = nil
	us := make([]uri.URI, 0, len(c.docs))
	for u := range c.docs {
		us = append(us, u)
	}
	slices.Sort(us)
	for _, u := range us {
		d := c.docs[u]
		d.edits = nil
		base, log := d.base, d.log
		if c.cfg.DocumentText != nil {
			text, err := c.cfg.DocumentText(d.path)
			if err != nil {
				delete(c.docs, u)
				c.keepMessage(Message{Show: true, Type: 1, Text: fmt.Sprintf("lsp: cannot reopen %s after the server restarted: %v", d.path, err)})
				continue
			}
			d.base, d.log, base, log = text, nil, text, nil
			d.gen++
		}
		d.version++
		// The log counts columns as the server that died did; the same
		// program, restarted, chooses the same.
		v, lang, enc := d.version, d.languageID, c.enc
		// Later edits append to d.log past len(log) or to a new slice, so
		// the writer reads a log nobody modifies.
		n := didOpenSize(base)
		for _, e := range log {
			n += len(e.Text)
		}
		c.preInit = append(c.preInit, queuedFrame{frame: outFrame{lazy: func() []byte {
			return didOpenFrame(u, lang, v, applyEdits(base, log, enc))
		}, n: n}})
	}
}

// didOpenSize is about the size of a didOpen of text, for the outbox's
// bound: escaping grows a source file by a few percent.
func didOpenSize(text []byte) int { return len(text) + len(text)/16 + 256 }

// didOpenFrame encodes a didOpen. Invalid UTF-8 in text is replaced with
// U+FFFD, as JSON requires.
func didOpenFrame(u uri.URI, languageID string, version int32, text []byte) []byte {
	b := make([]byte, 0, len(text)+len(text)/8+256)
	b = append(b, `{"jsonrpc":"2.0","method":"textDocument/didOpen","params":{"textDocument":{"uri":`...)
	b, _ = jsontext.AppendQuote(b, string(u))
	b = append(b, `,"languageId":`...)
	b, _ = jsontext.AppendQuote(b, languageID)
	b = append(b, `,"version":`...)
	b = strconv.AppendInt(b, int64(version), 10)
	b = append(b, `,"text":`...)
	b, _ = jsontext.AppendQuote(b, text)
	b = append(b, "}}}"...)
	return appendFrame(nil, b)
}

// Change records incremental edits to an open document. They are sent as
// one didChange per document at the end of the next Poll, or before the
// next request or notification, whichever comes first, so a burst of
// keystrokes in a frame costs one message.
func (c *Client) Change(path string, edits ...Edit) error {
	d := c.docs[docURI(path)]
	if d == nil {
		return fmt.Errorf("%w: change %s", ErrNotOpen, path)
	}
	if len(d.edits) == 0 {
		c.dirtyDocs = append(c.dirtyDocs, d)
	}
	for _, e := range edits {
		d.edits = append(d.edits, map[string]any{"range": e.Range, "text": e.Text})
	}
	d.log = append(d.log, edits...)
	if len(d.log) >= compactAfter && !d.compacting {
		c.compactLog(d)
	}
	return nil
}

// evCompacted is a document's log folded into its base on a worker.
type evCompacted struct {
	doc  *document
	gen  uint64
	n    int // how many log entries text includes
	text []byte
	err  error
}

// compactLog folds the document's log into a new base on a worker of the
// lsp actor: the work is a copy of the whole text, which a keystroke must
// not pay.
func (c *Client) compactLog(d *document) {
	d.compacting = true
	base, log, gen, t, enc := d.base, d.log, d.gen, c.t, c.enc
	c.rt.Executor().Submit(context.Background(), workers.Task{
		Actor: Actor, Lane: workers.LaneRead, Name: "lsp document text",
		Run: func(context.Context, workers.Actor) (any, error) {
			return applyEdits(base, log, enc), nil
		},
		Done: func(r workers.Result) {
			text, _ := r.Value.([]byte)
			t.push(evCompacted{doc: d, gen: gen, n: len(log), text: text, err: r.Err}, false)
		},
	})
}

func (c *Client) onCompacted(e evCompacted) {
	d := e.doc
	d.compacting = false
	if e.err != nil || c.docs[d.uri] != d || d.gen != e.gen {
		return // closed, or its base replaced meanwhile; a later edit retries
	}
	d.base = e.text
	d.log = slices.Clone(d.log[e.n:])
	// Edits made while the fold ran may already fill another: fold them
	// now, not at the next keystroke, which may never come.
	if len(d.log) >= compactAfter {
		c.compactLog(d)
	}
}

// Save sends didSave for an open document.
func (c *Client) Save(path string) error {
	u := docURI(path)
	if c.docs[u] == nil {
		return fmt.Errorf("%w: save %s", ErrNotOpen, path)
	}
	return c.Notify(protocol.MethodTextDocumentDidSave, map[string]any{"textDocument": map[string]any{"uri": string(u)}})
}

// CloseDocument sends didClose and forgets the document and its
// diagnostics: TakeChangedDiagnostics lists it among the changed ones,
// with none.
func (c *Client) CloseDocument(path string) error {
	u := docURI(path)
	if c.docs[u] == nil {
		return fmt.Errorf("%w: close %s", ErrNotOpen, path)
	}
	err := c.Notify(protocol.MethodTextDocumentDidClose, map[string]any{"textDocument": map[string]any{"uri": string(u)}})
	delete(c.docs, u)
	delete(c.semantic, u)
	delete(c.pullIDs, u)
	c.dropDiagnostics(u)
	return err
}

// Version returns the version of an open document's current text (0 when
// not open): the version last sent, or the next one when edits wait to be
// sent, since they go out under it. A WorkspaceEdit that names another
// version was computed for other text, and applying it would corrupt this.
func (c *Client) Version(path string) int32 {
	if d := c.docs[docURI(path)]; d != nil {
		if len(d.edits) > 0 {
			return d.version + 1
		}
		return d.version
	}
	return 0
}

// flushChanges sends the recorded edits, one didChange per document.
func (c *Client) flushChanges() {
	dirty := c.dirtyDocs
	c.dirtyDocs = nil
	for _, d := range dirty {
		if len(d.edits) == 0 || c.docs[d.uri] != d {
			continue
		}
		d.version++
		frame := c.encodeNotification(protocol.MethodTextDocumentDidChange, map[string]any{
			"textDocument":   map[string]any{"uri": string(d.uri), "version": d.version},
			"contentChanges": d.edits,
		})
		d.edits = nil
		c.out(outFrame{b: frame})
	}
}
