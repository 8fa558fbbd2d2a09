// Package fileuri converts between file paths and the file URIs that
// language servers (LSP) and MCP servers name documents by, and gives the
// canonical form under which two spellings of one file's URI compare
// equal.
//
// # Encoding
//
// FromPath percent-encodes every byte of the path except the RFC 3986
// unreserved characters (A-Z a-z 0-9 - . _ ~) and the '/' separators, with
// upper-case hex: "/src/my file#2.go" is "file:///src/my%20file%232.go".
// That is what vscode-uri's encodeURIComponentFast produces, so it is
// byte for byte the URI VS Code sends, the client every server is tested
// against; gopls escapes less (Go's url.URL leaves : @ + & = $ , ; alone)
// but unescapes and re-encodes whatever it receives, so it reads this form
// as its own. Encoding more than RFC 3986 requires is never wrong, while a
// server that compares URIs as strings only matches the form VS Code uses.
// On Windows a drive letter is lower-cased and its colon encoded, again as
// VS Code does ("C:\x" is "file:///c%3A/x"), and a UNC path
// "\\host\share\x" is "file://host/share/x".
//
// # Decoding
//
// ToPath is tolerant of what servers send: any valid percent-encoding
// (upper- or lower-case hex, escaped or unescaped ':' '@' '+' and the
// like), the authority "localhost", the form "file:/x" without an
// authority, and a drive letter in either case with its colon escaped or
// not. A '#' or '?' in a file URI is read as part of the path, as gopls
// does: a file URI has no use for a query or a fragment, and a server that
// builds URIs by concatenation leaves them unescaped. The path is cleaned
// (no "." or ".." segments, no trailing slash), so it compares equal to
// filepath.Clean of the same path. ToPath refuses, with an error wrapping
// one of the Err values, another scheme, a host other than this machine
// (on Unix; on Windows a host is a UNC server), a URI without an absolute
// path, a malformed escape and a NUL byte; it never panics.
//
// On Unix a path whose first segment looks like a drive letter ("/C:/x")
// is an ordinary path: its case is kept, since "/C:" and "/c:" are two
// directories there.
//
// # Comparing
//
// Canonical(u) is FromPath(ToPath(u)): every URI of one file gives the
// same string, whatever the server's escaping, so maps of documents and
// diagnostics are keyed by it. A URI already in canonical form (what the
// client sent, echoed back) is returned as it is, without allocating.
//
// # Concurrency
//
// The functions are pure (FromPath reads the working directory for a
// relative path): call them from any goroutine.
package fileuri
