package lsp

import (
	"bytes"
	"errors"
	"fmt"

	"github.com/go-json-experiment/json/jsontext"
	"go.lsp.dev/protocol"
)

// MaxDiagnostics bounds the diagnostics kept of one publication: the first
// MaxDiagnostics, in the server's order; the rest are skipped unread as
// the publication is decoded, and counted (DroppedDiagnostics). A frame
// may hold a million small diagnostics, and each decoded one (then shaped
// for the host) costs several times its bytes: decoding only the kept ones
// bounds that cost whatever the server sends.
const MaxDiagnostics = 10_000

// decodeDiagnostics decodes a publishDiagnostics's params, keeping at most
// max diagnostics, and returns how many more there were. A first pass
// only scans: it notes the uri and version members and the span of the
// array's first max elements, and counts the rest. protocol.Unmarshal
// then decodes those alone, so the memory is that of the kept
// diagnostics, never of the whole array. The last of a duplicate member
// wins, as with protocol.Unmarshal.
func decodeDiagnostics(raw jsontext.Value, max int) (*protocol.PublishDiagnosticsParams, int, error) {
	if len(raw) < 3*max {
		// Each element takes three bytes at least ("{}" and a comma): a
		// publication this small cannot pass max, and the usual one is
		// decoded in one pass.
		var p protocol.PublishDiagnosticsParams
		if err := protocol.Unmarshal(raw, &p); err != nil {
			return nil, 0, err
		}
		return &p, 0, nil
	}
	dec := jsontext.NewDecoder(bytes.NewReader(raw), lenient)
	if tok, err := dec.ReadToken(); err != nil {
		return nil, 0, err
	} else if tok.Kind() != '{' {
		return nil, 0, fmt.Errorf("publishDiagnostics: params are %v, not an object", tok.Kind())
	}
	var (
		// kept is what protocol.Unmarshal decodes: the uri and version
		// members (a few bytes) and then the kept diagnostics.
		kept    = []byte{'{'}
		span    []byte // the kept elements, commas between; nil: no array
		dropped int
	)
	for dec.PeekKind() != '}' {
		name, err := dec.ReadToken()
		if err != nil {
			return nil, 0, err
		}
		switch key := name.String(); key {
		case "uri", "version":
			v, err := dec.ReadValue()
			if err != nil {
				return nil, 0, err
			}
			kept, _ = jsontext.AppendQuote(kept, key)
			kept = append(kept, ':')
			kept = append(kept, v...)
			kept = append(kept, ',')
		case "diagnostics":
			// A later diagnostics member replaces an earlier one.
			span, dropped = nil, 0
			switch dec.PeekKind() {
			case 'n':
				if _, err := dec.ReadToken(); err != nil {
					return nil, 0, err
				}
				continue
			case '[':
			default:
				return nil, 0, errors.New("publishDiagnostics: diagnostics is not an array")
			}
			if _, err := dec.ReadToken(); err != nil {
				return nil, 0, err
			}
			from, n := dec.InputOffset(), 0
			for ; n < max && dec.PeekKind() != ']'; n++ {
				if err := dec.SkipValue(); err != nil {
					return nil, 0, err
				}
			}
			span = raw[from:dec.InputOffset()]
			for dec.PeekKind() != ']' {
				if err := dec.SkipValue(); err != nil {
					return nil, 0, err
				}
				dropped++
			}
			if _, err := dec.ReadToken(); err != nil {
				return nil, 0, err
			}
		default:
			if err := dec.SkipValue(); err != nil {
				return nil, 0, err
			}
		}
	}
	if _, err := dec.ReadToken(); err != nil {
		return nil, 0, err
	}
	if span != nil {
		kept = append(kept, `"diagnostics":[`...)
		kept = append(kept, span...)
		kept = append(kept, "]}"...)
	} else if len(kept) > 1 {
		kept[len(kept)-1] = '}' // in the last member's comma's place
	} else {
		kept = append(kept, '}')
	}
	var p protocol.PublishDiagnosticsParams
	if err := protocol.Unmarshal(kept, &p); err != nil {
		return nil, 0, err
	}
	if span != nil && p.Diagnostics == nil {
		p.Diagnostics = []protocol.Diagnostic{}
	}
	return &p, dropped, nil
}
