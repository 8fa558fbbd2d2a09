package fileuri

import (
	"errors"
	"fmt"
	"path"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
)

var (
	// ErrNotFile is a URI whose scheme is not "file".
	ErrNotFile = errors.New("fileuri: not a file URI")
	// ErrHost is a file URI that names a file on another machine (an
	// authority other than "" or "localhost"), on Unix.
	ErrHost = errors.New("fileuri: file URI names another host")
	// ErrNotAbsolute is a file URI without an absolute path ("file:x",
	// "file://localhost").
	ErrNotAbsolute = errors.New("fileuri: file URI has no absolute path")
	// ErrEscape is a '%' not followed by two hex digits.
	ErrEscape = errors.New("fileuri: malformed percent-encoding")
	// ErrNUL is a path with a NUL byte, which no file has.
	ErrNUL = errors.New("fileuri: file URI names a path with a NUL byte")
)

// windows selects the host's path form: drive letters, backslashes and
// UNC hosts.
const windows = runtime.GOOS == "windows"

// FromPath returns the canonical file URI of path. A relative path is made
// absolute against the working directory (against the root if that is
// gone), and the path is cleaned first, so FromPath("/a/./b/") is
// "file:///a/b". A path holding a NUL byte names no file: its URI does
// not parse back.
func FromPath(p string) string {
	return format(absolute(p), windows)
}

// ToPath returns the cleaned absolute path of the local file that the file
// URI u names, or an error wrapping ErrNotFile, ErrHost, ErrNotAbsolute,
// ErrEscape or ErrNUL.
func ToPath(u string) (string, error) {
	return parse(u, windows)
}

// Canonical returns the URI FromPath gives for the file u names, so that
// two spellings of one file's URI compare equal. u is returned as it is,
// without allocating, when it is canonical already; a URI that names no
// local file is returned as it is with ToPath's error.
func Canonical(u string) (string, error) {
	if !windows && isCanonical(u) {
		return u, nil
	}
	p, err := parse(u, windows)
	if err != nil {
		return u, err
	}
	return format(p, windows), nil
}

func absolute(p string) string {
	if a, err := filepath.Abs(p); err == nil {
		return a
	}
	return filepath.Join(string(filepath.Separator), p)
}

// unreserved reports whether c passes unescaped (RFC 3986's unreserved
// characters).
func unreserved(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' ||
		c == '-' || c == '.' || c == '_' || c == '~'
}

// keep reports whether byte c of a URI path passes unescaped.
func keep(c byte) bool { return unreserved(c) || c == '/' }

const upperHex = "0123456789ABCDEF"

// format builds the URI of p, an absolute clean path in the form of the
// platform win selects, with a single allocation.
func format(p string, win bool) string {
	host := ""
	if win {
		p = strings.ReplaceAll(p, `\`, "/")
		switch {
		case strings.HasPrefix(p, "//"):
			host, p, _ = strings.Cut(p[2:], "/")
			host, p = strings.ToLower(host), "/"+p
		case isDrive(p):
			p = "/" + string(lowerASCII(p[0])) + p[1:]
		}
	}
	n := len("file://")
	for _, s := range [2]string{host, p} {
		for i := 0; i < len(s); i++ {
			if n++; !keep(s[i]) {
				n += 2
			}
		}
	}
	var b strings.Builder
	b.Grow(n)
	b.WriteString("file://")
	for _, s := range [2]string{host, p} {
		for i := 0; i < len(s); i++ {
			if c := s[i]; keep(c) {
				b.WriteByte(c)
			} else {
				b.WriteByte('%')
				b.WriteByte(upperHex[c>>4])
				b.WriteByte(upperHex[c&15])
			}
		}
	}
	return b.String()
}

// parse reads the file URI u into a clean absolute path in the form of
// the platform win selects.
func parse(u string, win bool) (string, error) {
	if len(u) < len("file:") || !strings.EqualFold(u[:len("file:")], "file:") {
		return "", fmt.Errorf("%w: %s", ErrNotFile, quote(u))
	}
	rest, host := u[len("file:"):], ""
	if strings.HasPrefix(rest, "//") {
		i := strings.IndexByte(rest[2:], '/')
		if i < 0 {
			i = len(rest) - 2
		}
		host, rest = rest[2:2+i], rest[2+i:]
	}
	if !strings.HasPrefix(rest, "/") {
		return "", fmt.Errorf("%w: %s", ErrNotAbsolute, quote(u))
	}
	host, err := unescape(host, u, len("file://"))
	if err != nil {
		return "", err
	}
	if strings.EqualFold(host, "localhost") {
		host = ""
	}
	if host != "" && (!win || strings.ContainsAny(host, `/\`)) {
		return "", fmt.Errorf("%w (%s): %s", ErrHost, quote(host), quote(u))
	}
	p, err := unescape(rest, u, len(u)-len(rest))
	if err != nil {
		return "", err
	}
	if !win {
		return path.Clean(p), nil
	}
	p = strings.ReplaceAll(p, `\`, "/") // a separator too on Windows
	switch {
	case host != "":
		// A host name has no case; the URI's is lower-case, as format
		// makes it.
		p = "//" + strings.ToLower(host) + path.Clean(p)
	default:
		if !isDrive(p[1:]) {
			p = path.Clean(p) // which may bring a drive to the front: "/../c:"
		}
		if isDrive(p[1:]) {
			p = string(upperASCII(p[1])) + ":" + path.Clean("/"+p[3:])
		}
	}
	return strings.ReplaceAll(p, "/", `\`), nil
}

// unescape percent-decodes s, the part of the URI u at byte off; s itself
// when it has no escape.
func unescape(s, u string, off int) (string, error) {
	esc := 0
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case 0:
			return "", fmt.Errorf("%w: %s", ErrNUL, quote(u))
		case '%':
			if i+2 >= len(s) || !isHex(s[i+1]) || !isHex(s[i+2]) {
				return "", fmt.Errorf("%w %s at byte %d: %s", ErrEscape, quote(s[i:min(i+3, len(s))]), off+i, quote(u))
			}
			if unhex(s[i+1])<<4|unhex(s[i+2]) == 0 {
				return "", fmt.Errorf("%w: %s", ErrNUL, quote(u))
			}
			esc++
			i += 2
		}
	}
	if esc == 0 {
		return s, nil
	}
	var b strings.Builder
	b.Grow(len(s) - 2*esc)
	for i := 0; i < len(s); i++ {
		if s[i] == '%' {
			b.WriteByte(unhex(s[i+1])<<4 | unhex(s[i+2]))
			i += 2
			continue
		}
		b.WriteByte(s[i])
	}
	return b.String(), nil
}

// isCanonical reports whether u is exactly what format gives for the
// path it names on Unix: "file:///", then only unreserved bytes, '/' and
// upper-case escapes of bytes that need one, in clean segments.
func isCanonical(u string) bool {
	const prefix = "file:///"
	if !strings.HasPrefix(u, prefix) {
		return false
	}
	p := u[len(prefix)-1:]
	seg := 1 // where the current segment starts
	for i := 1; i < len(p); i++ {
		switch c := p[i]; {
		case c == '/':
			if dotOrEmpty(p[seg:i]) {
				return false
			}
			seg = i + 1
		case unreserved(c):
		case c == '%' && i+2 < len(p) && isUpperHex(p[i+1]) && isUpperHex(p[i+2]):
			if d := unhex(p[i+1])<<4 | unhex(p[i+2]); d == 0 || keep(d) {
				return false
			}
			i += 2
		default:
			return false
		}
	}
	return len(p) == 1 || !dotOrEmpty(p[seg:])
}

func dotOrEmpty(seg string) bool { return seg == "" || seg == "." || seg == ".." }

// isDrive reports whether p starts with a drive letter and its colon,
// followed by a separator or nothing ("C:", "c:/x").
func isDrive(p string) bool {
	return len(p) >= 2 && ('a' <= lowerASCII(p[0]) && lowerASCII(p[0]) <= 'z') && p[1] == ':' &&
		(len(p) == 2 || p[2] == '/' || p[2] == '\\')
}

func lowerASCII(c byte) byte {
	if 'A' <= c && c <= 'Z' {
		return c + 'a' - 'A'
	}
	return c
}

func upperASCII(c byte) byte {
	if 'a' <= c && c <= 'z' {
		return c - ('a' - 'A')
	}
	return c
}

func isHex(c byte) bool { return '0' <= c && c <= '9' || 'a' <= lowerASCII(c) && lowerASCII(c) <= 'f' }

func isUpperHex(c byte) bool { return '0' <= c && c <= '9' || 'A' <= c && c <= 'F' }

func unhex(c byte) byte {
	switch {
	case c <= '9':
		return c - '0'
	case c <= 'F':
		return c - 'A' + 10
	}
	return c - 'a' + 10
}

// quote quotes s for an error message, cut to a length a message can
// carry: a URI comes from a server and may be of any size.
func quote(s string) string {
	const most = 256
	if len(s) > most {
		return strconv.Quote(s[:most]) + "..."
	}
	return strconv.Quote(s)
}
