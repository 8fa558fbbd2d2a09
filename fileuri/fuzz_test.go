package fileuri

import (
	"errors"
	"path"
	"path/filepath"
	"strings"
	"testing"
)

// FuzzPathRoundTrip covers issue 25's fuzz target for the round trip:
// path -> URI -> path gives the cleaned absolute path, for any bytes, and
// the URI is in canonical form; the same for a Windows drive path built
// from the input.
func FuzzPathRoundTrip(f *testing.F) {
	for _, p := range []string{
		"/src/a#b.go", "/src/my file.go", "/src/ü.go", "/src/50%.go", "/src/what?.go", "/C:/x",
		"rel/x y", "", "/", "//a//b/../c/.", "/a\xff\xfeb", "/a%2Fb", "/a\\b", "/x@y+z:w",
	} {
		f.Add(p)
	}
	f.Fuzz(func(t *testing.T, p string) {
		u := FromPath(p)
		got, err := ToPath(u)
		want := absolute(p)
		if strings.IndexByte(want, 0) >= 0 {
			if !errors.Is(err, ErrNUL) {
				t.Fatalf("FromPath(%q) = %q, ToPath: %q, %v; want ErrNUL", p, u, got, err)
			}
			return
		}
		if err != nil {
			t.Fatalf("FromPath(%q) = %q, ToPath: %v", p, u, err)
		}
		if got != want {
			t.Fatalf("FromPath(%q) = %q, ToPath = %q, want %q", p, u, got, want)
		}
		if !isCanonical(u) {
			t.Fatalf("FromPath(%q) = %q, not canonical", p, u)
		}
		if c, err := Canonical(u); err != nil || c != u {
			t.Fatalf("Canonical(%q) = %q, %v", u, c, err)
		}

		wp := strings.ReplaceAll("C:"+path.Clean("/"+filepath.ToSlash(strings.ReplaceAll(p, `\`, "/"))), "/", `\`)
		wu := format(wp, true)
		if got, err := parse(wu, true); strings.IndexByte(wp, 0) < 0 && (err != nil || got != wp) {
			t.Fatalf("Windows %q -> %q -> %q, %v", wp, wu, got, err)
		}
	})
}

// FuzzToPath covers issue 25's fuzz targets for URI -> path: any string
// either parses or fails with one of the package's errors, never panics;
// a path it gives is clean, absolute and has no NUL; and its URI parses
// back to the same path (to_path then from_path is idempotent), so
// Canonical is stable.
func FuzzToPath(f *testing.F) {
	for _, u := range []string{
		"file:///src/my%20file.go", "file:///src/a#b.go", "file:///src/x@y+z:w/a.go", "file:///c%3A/x",
		"file:///C:/x", "file://localhost/a", "file://server/share/x", "file:/a", "file:a", "FILE:///%c3%bc",
		"file:///a%zz", "file:///a%00", "https://x/y", "", "file://", "file:///a/../../b/./", "file:///a%2F..%2Fb",
	} {
		f.Add(u)
	}
	sentinels := []error{ErrNotFile, ErrHost, ErrNotAbsolute, ErrEscape, ErrNUL}
	f.Fuzz(func(t *testing.T, u string) {
		for _, win := range []bool{false, true} {
			p, err := parse(u, win)
			if err != nil {
				known := false
				for _, s := range sentinels {
					known = known || errors.Is(err, s)
				}
				if !known {
					t.Fatalf("parse(%q, %v): %v wraps no sentinel", u, win, err)
				}
				continue
			}
			if strings.IndexByte(p, 0) >= 0 {
				t.Fatalf("parse(%q, %v) = %q, with a NUL", u, win, p)
			}
			if !win && (p != path.Clean(p) || !path.IsAbs(p)) {
				t.Fatalf("parse(%q) = %q, not clean and absolute", u, p)
			}
			c := format(p, win)
			p2, err := parse(c, win)
			if err != nil || p2 != p {
				t.Fatalf("parse(%q, %v) = %q, its URI %q parses to %q, %v", u, win, p, c, p2, err)
			}
			if c2 := format(p2, win); c2 != c {
				t.Fatalf("parse(%q, %v): URI %q, then %q", u, win, c, c2)
			}
			if win {
				continue
			}
			if !isCanonical(c) {
				t.Fatalf("format(%q) = %q, not canonical", p, c)
			}
			if cu, err := Canonical(u); err != nil || cu != c {
				t.Fatalf("Canonical(%q) = %q, %v; want %q", u, cu, err, c)
			}
		}
	})
}
