package lsp

import (
	"go.lsp.dev/uri"

	"github.com/pmacs-go/pmacs-go/fileuri"
)

// docURI is the URI the client names the file at path by: fileuri's
// canonical form, the key of the documents and diagnostics maps.
func docURI(path string) uri.URI {
	return uri.URI(fileuri.FromPath(path))
}

// canonicalURI is the key of a URI a server sent: the same file's URI
// spelled another way (gopls leaves '@' and ':' unescaped, another server
// may use lower-case hex) keys the same entry as docURI's. A URI that
// names no local file keys its own entry, as sent.
func canonicalURI(u uri.URI) uri.URI {
	c, err := fileuri.Canonical(string(u))
	if err != nil {
		return u
	}
	return uri.URI(c)
}
