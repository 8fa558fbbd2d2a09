// Package lsptest holds what the project's scripted language servers share:
// reading and writing the base protocol's frames (a Content-Length header,
// an empty line, a JSON body). The servers themselves stay with the tests
// that script them; each plays a different part.
package lsptest

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// ReadMessage reads one frame from r and returns its body: io.EOF at the
// end of the input, an error for a frame without a usable Content-Length.
func ReadMessage(r *bufio.Reader) ([]byte, error) {
	n := -1
	for {
		line, err := r.ReadString('\n')
		if err != nil {
			return nil, err
		}
		line = strings.TrimSpace(line)
		if line == "" {
			break
		}
		if v, ok := strings.CutPrefix(line, "Content-Length: "); ok {
			if n, err = strconv.Atoi(v); err != nil || n < 0 {
				return nil, fmt.Errorf("lsptest: bad Content-Length %q", v)
			}
		}
	}
	if n < 0 {
		return nil, fmt.Errorf("lsptest: a frame without Content-Length")
	}
	body := make([]byte, n)
	if _, err := io.ReadFull(r, body); err != nil {
		return nil, err
	}
	return body, nil
}

// WriteMessage writes v, as JSON, to w in one frame.
func WriteMessage(w io.Writer, v any) error {
	body, err := json.Marshal(v)
	if err != nil {
		return err
	}
	_, err = fmt.Fprintf(w, "Content-Length: %d\r\n\r\n%s", len(body), body)
	return err
}

// Frames frames each body for the wire, in order: a server's output as a
// test or a fuzz seed gives it.
func Frames(bodies ...string) []byte {
	var b strings.Builder
	for _, body := range bodies {
		fmt.Fprintf(&b, "Content-Length: %d\r\n\r\n%s", len(body), body)
	}
	return []byte(b.String())
}
