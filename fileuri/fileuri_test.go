package fileuri

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestFromPathEncodesAsVSCode covers issue 25's point 6 and its "RFC 3986
// percent-encoding as gopls and vscode-uri do": every byte but the
// unreserved characters and '/' is escaped with upper-case hex, as
// vscode-uri's encodeURIComponentFast does, and the path is cleaned.
func TestFromPathEncodesAsVSCode(t *testing.T) {
	for _, tc := range []struct{ path, uri string }{
		{"/", "file:///"},
		{"/src/m.go", "file:///src/m.go"},
		{"/src/a#b.go", "file:///src/a%23b.go"},
		{"/src/my file.go", "file:///src/my%20file.go"},
		{"/src/50%.go", "file:///src/50%25.go"},
		{"/src/what?.go", "file:///src/what%3F.go"},
		{"/src/ü.go", "file:///src/%C3%BC.go"},
		{"/src/x@y+z:w/a=b&c,d;e$f!g'h(i)j*k", "file:///src/x%40y%2Bz%3Aw/a%3Db%26c%2Cd%3Be%24f%21g%27h%28i%29j%2Ak"},
		{"/src/-._~", "file:///src/-._~"},
		{"/src/back\\slash", "file:///src/back%5Cslash"},
		{"/src/bad\xff", "file:///src/bad%FF"},
		{"/C:/x", "file:///C%3A/x"}, // on Unix an ordinary directory "C:"
		{"/src/./a/../b/", "file:///src/b"},
		{"//src//b", "file:///src/b"},
	} {
		require.Equal(t, tc.uri, format(filepath.Clean(tc.path), false), "%q", tc.path)
		if !windows {
			require.Equal(t, tc.uri, FromPath(tc.path), "%q", tc.path)
		}
	}
}

// TestFromPathOfARelativePath covers FromPath's promise of an absolute
// URI: a relative path is taken from the working directory.
func TestFromPathOfARelativePath(t *testing.T) {
	wd, err := os.Getwd()
	require.NoError(t, err)
	require.Equal(t, FromPath(filepath.Join(wd, "x y.go")), FromPath("x y.go"))
	require.Equal(t, FromPath(wd), FromPath(""))
}

// TestToPathReadsWhatServersSend covers issue 25's tolerant URI -> path:
// any valid percent-encoding, either hex case, localhost, "file:/x",
// unescaped reserved characters (gopls's form), drive letters in the forms
// servers send them.
func TestToPathReadsWhatServersSend(t *testing.T) {
	for _, tc := range []struct{ uri, path string }{
		{"file:///src/my%20file.go", "/src/my file.go"},
		{"file:///src/my file.go", "/src/my file.go"},
		{"file:///src/a%23b.go", "/src/a#b.go"},
		{"file:///src/a#b.go", "/src/a#b.go"},
		{"file:///src/what?.go", "/src/what?.go"},
		{"file:///src/50%25.go", "/src/50%.go"},
		{"file:///src/%C3%BC.go", "/src/ü.go"},
		{"file:///src/%c3%bc.go", "/src/ü.go"},
		{"file:///src/ü.go", "/src/ü.go"},
		{"file:///src/x@y+z:w/a.go", "/src/x@y+z:w/a.go"},
		{"file:///src/x%40y%2Bz%3Aw/a.go", "/src/x@y+z:w/a.go"},
		{"file:///src/a%2Fb", "/src/a/b"},
		{"file:///src/bad%FF", "/src/bad\xff"},
		{"file://localhost/src/m.go", "/src/m.go"},
		{"file://LocalHost/src/m.go", "/src/m.go"},
		{"file:/src/m.go", "/src/m.go"},
		{"FILE:///src/m.go", "/src/m.go"},
		{"file:///src/./a/../b/", "/src/b"},
		{"file:///../../etc", "/etc"},
		{"file:///", "/"},
		{"file:///C:/x", "/C:/x"},
		{"file:///c%3A/x", "/c:/x"},
		{"file:///C%3a/x", "/C:/x"},
	} {
		p, err := parse(tc.uri, false)
		require.NoError(t, err, "%q", tc.uri)
		require.Equal(t, tc.path, p, "%q", tc.uri)
	}
}

// TestToPathRefusesWhatNamesNoLocalFile covers issue 25's "a clear error
// for other schemes, hosts, or malformed escapes": each wraps its Err
// value and quotes the URI.
func TestToPathRefusesWhatNamesNoLocalFile(t *testing.T) {
	for _, tc := range []struct {
		uri  string
		want error
		msg  string
	}{
		{"https://example.com/x", ErrNotFile, `fileuri: not a file URI: "https://example.com/x"`},
		{"untitled:Untitled-1", ErrNotFile, `fileuri: not a file URI: "untitled:Untitled-1"`},
		{"/src/m.go", ErrNotFile, `fileuri: not a file URI: "/src/m.go"`},
		{"", ErrNotFile, `fileuri: not a file URI: ""`},
		{"fil", ErrNotFile, `fileuri: not a file URI: "fil"`},
		{"file://server/share/x", ErrHost, `fileuri: file URI names another host ("server"): "file://server/share/x"`},
		{"file://src/m.go", ErrHost, `fileuri: file URI names another host ("src"): "file://src/m.go"`},
		{"file:src/m.go", ErrNotAbsolute, `fileuri: file URI has no absolute path: "file:src/m.go"`},
		{"file://", ErrNotAbsolute, `fileuri: file URI has no absolute path: "file://"`},
		{"file://localhost", ErrNotAbsolute, `fileuri: file URI has no absolute path: "file://localhost"`},
		{"file:", ErrNotAbsolute, `fileuri: file URI has no absolute path: "file:"`},
		{"file:///a%zzb", ErrEscape, `fileuri: malformed percent-encoding "%zz" at byte 9: "file:///a%zzb"`},
		{"file:///a%4", ErrEscape, `fileuri: malformed percent-encoding "%4" at byte 9: "file:///a%4"`},
		{"file:///a%", ErrEscape, `fileuri: malformed percent-encoding "%" at byte 9: "file:///a%"`},
		{"file://local%host/a", ErrEscape, `fileuri: malformed percent-encoding "%ho" at byte 12: "file://local%host/a"`},
		{"file:///a%00b", ErrNUL, `fileuri: file URI names a path with a NUL byte: "file:///a%00b"`},
		{"file:///a\x00b", ErrNUL, `fileuri: file URI names a path with a NUL byte: "file:///a\x00b"`},
	} {
		p, err := parse(tc.uri, false)
		require.Error(t, err, "%q gave %q", tc.uri, p)
		require.True(t, errors.Is(err, tc.want), "%q: %v", tc.uri, err)
		require.EqualError(t, err, tc.msg)
		c, cerr := Canonical(tc.uri)
		require.Equal(t, tc.uri, c, "Canonical keeps what names no file")
		require.Equal(t, err, cerr)
	}
	long := "https://" + strings.Repeat("x", 10000)
	_, err := ToPath(long)
	require.Less(t, len(err.Error()), 400, "a huge URI is cut in the message")
}

// TestURIsOfOneFileCompareEqual covers issue 25's comparison point: the
// spellings servers use for one file (gopls leaves @ : + unescaped,
// vscode-uri escapes them, some use lower-case hex, localhost) have one
// Canonical form, FromPath's, so a diagnostic for my%20file.go finds the
// document opened as "my file.go".
func TestURIsOfOneFileCompareEqual(t *testing.T) {
	const want = "file:///src/x%40y%2Bz%3Aw/my%20file%23%C3%BC.go"
	require.Equal(t, want, format("/src/x@y+z:w/my file#ü.go", false))
	for _, u := range []string{
		want,
		"file:///src/x@y+z:w/my%20file%23%C3%BC.go",
		"file:///src/x@y+z:w/my file%23ü.go",
		"file:///src/x%40y%2bz%3aw/my%20file%23%c3%bc.go",
		"file://localhost/src/x@y+z:w/my%20file%23%C3%BC.go",
		"file:/src/x@y+z:w/./my%20file%23%C3%BC.go",
		"File:///src//x@y+z:w/my%20file%23%C3%BC.go",
	} {
		c, err := Canonical(u)
		require.NoError(t, err, u)
		require.Equal(t, want, c, u)
	}
}

// TestDriveLetterURIsAreStable covers issue 25's Windows-style drive
// letters in URIs from servers (file:///C:/x, file:///c%3A/x): URI ->
// path -> URI is stable after one step, on Unix (where "/C:" is a
// directory and keeps its case) and on Windows (a drive, lower-cased in
// the URI as VS Code does, upper-cased in the path).
func TestDriveLetterURIsAreStable(t *testing.T) {
	for _, win := range []bool{false, true} {
		for _, u := range []string{"file:///C:/x", "file:///c%3A/x", "file:///c:/x/", "file:///C%3a/x/../x", "file:///C:"} {
			p, err := parse(u, win)
			require.NoError(t, err, u)
			c := format(p, win)
			p2, err := parse(c, win)
			require.NoError(t, err, c)
			require.Equal(t, p, p2, "windows %v: %s -> %q -> %s", win, u, p, c)
			require.Equal(t, c, format(p2, win))
		}
	}
	p, err := parse("file:///c%3A/a%20b/x.go", true)
	require.NoError(t, err)
	require.Equal(t, `C:\a b\x.go`, p)
	require.Equal(t, "file:///c%3A/a%20b/x.go", format(`C:\a b\x.go`, true))
	require.Equal(t, "file:///c%3A/", format(`C:\`, true))
	p, err = parse("file:///C:", true)
	require.NoError(t, err)
	require.Equal(t, `C:\`, p)
}

// TestWindowsUNCPaths covers the Windows form of a host: a UNC path and
// its URI round trip; a host stays refused on Unix.
func TestWindowsUNCPaths(t *testing.T) {
	require.Equal(t, "file://server/share/my%20x.go", format(`\\Server\share\my x.go`, true))
	p, err := parse("file://server/share/my%20x.go", true)
	require.NoError(t, err)
	require.Equal(t, `\\server\share\my x.go`, p)
	p, err = parse("file://localhost/c:/x", true)
	require.NoError(t, err)
	require.Equal(t, `C:\x`, p)
	_, err = parse("file://ser%5Cver/share", true)
	require.ErrorIs(t, err, ErrHost)
}

// TestCanonicalOfACanonicalURIAllocatesNothing covers issue 25's per-
// message cost: keying a URI the server echoed in our own form costs no
// allocation.
func TestCanonicalOfACanonicalURIAllocatesNothing(t *testing.T) {
	u := format("/src/x@y/my file#ü.go", false)
	require.True(t, isCanonical(u))
	allocs := testing.AllocsPerRun(100, func() {
		if c, err := Canonical(u); err != nil || c != u {
			t.Fatal(c, err)
		}
	})
	require.Zero(t, allocs)
}

// TestIsCanonicalRejectsEveryOtherSpelling covers the fast path's rule: it
// accepts only what format would give.
func TestIsCanonicalRejectsEveryOtherSpelling(t *testing.T) {
	for _, u := range []string{
		"file:///", "file:///a", "file:///a/b%20c", "file:///%C3%BC", "file:///a.b/..c/.d",
	} {
		require.True(t, isCanonical(u), u)
	}
	for _, u := range []string{
		"file://", "file:/a", "FILE:///a", "file://localhost/a", "file:///a/", "file:///a//b", "file:///a/./b",
		"file:///a/..", "file:///a/.", "file:///a%2Fb", "file:///%41", "file:///%c3%bc", "file:///a b",
		"file:///a%00", "file:///a%2", "file:///a#b", "file:///a?b", "file:///a@b",
	} {
		require.False(t, isCanonical(u), u)
	}
}
