package procjob

import (
	"fmt"

	"github.com/vmihailenco/msgpack/v5"

	"github.com/pmacs-go/pmacs-go/bus/wire"
	"github.com/pmacs-go/pmacs-go/proc"
	"github.com/pmacs-go/pmacs-go/runtime"
)

// lineUnit is how many bytes of a spawned program's line one unit of
// stream credit covers. A spawn's credit is a few thousand units, so with
// lines weighed this way the text waiting for a slow consumer stays in the
// tens of MiB whatever the lines' length (counted per line, 4,096 lines of
// 1 MiB each would have been 4 GiB).
const lineUnit = 4096

// lineWeight is the credit one line of n bytes costs.
func lineWeight(n int) int { return 1 + n/lineUnit }

// Lines is a spawn batch, as the main goroutine receives it.
type Lines []Line

func (ls Lines) Len() int { return len(ls) }

// Weight is the credit the lines hold: one unit per started 4 KiB of each.
func (ls Lines) Weight() int {
	n := 0
	for i := range ls {
		n += lineWeight(len(ls[i].Text))
	}
	return n
}

func (ls Lines) Append(more runtime.Items) runtime.Items { return append(ls, more.(Lines)...) }

func (ls Lines) Cut(n int) (head, rest runtime.Items) { return ls[:n:n], ls[n:] }

// rawLines are a worker's lines, encoded straight from proc's buffer
// (sending encodes before it returns, so aliasing it is safe).
type rawLines []proc.Line

func (ls rawLines) Len() int { return len(ls) }

func (ls rawLines) Weight() int {
	n := 0
	for i := range ls {
		n += lineWeight(len(ls[i].Text))
	}
	return n
}

func (ls rawLines) Append(more runtime.Items) runtime.Items { return append(ls, more.(rawLines)...) }

func (ls rawLines) Cut(n int) (head, rest runtime.Items) { return ls[:n:n], ls[n:] }

type linesCodec struct{}

func (linesCodec) EncodeItems(e *msgpack.Encoder, items runtime.Items) error {
	switch ls := items.(type) {
	case rawLines:
		return encodeLines(e, ls)
	case Lines:
		return encodeLines(e, linesToProc(ls))
	}
	return fmt.Errorf("procjob: lines of type %T", items)
}

func (linesCodec) DecodeItems(_ []byte, d *msgpack.Decoder) (runtime.Items, error) {
	ls, err := decodeLines(d)
	return Lines(ls), err
}

type resultCodec struct{}

func (resultCodec) EncodeValue(e *msgpack.Encoder, v any) error {
	r := v.(Result)
	return encodeExit(e, &r)
}

func (resultCodec) DecodeValue(d *msgpack.Decoder) (any, error) {
	r, err := decodeExit(d)
	if err != nil {
		return nil, err
	}
	return *r, nil
}

// exitSummary says how a program ended: "exit 0" or "signal SIGTERM".
func exitSummary(v any) any { return exitLine(v.(Result)) }

type exitLine Result

func (x exitLine) String() string {
	if x.Signal != "" {
		return "signal " + x.Signal
	}
	return fmt.Sprintf("exit %d", x.Code)
}

// systemSummary keeps a system job's exit and the size of its output, which
// may be megabytes: the completion ring must not pin it.
func systemSummary(v any) any {
	r := v.(Result)
	return systemLine{exit: exitLine{Code: r.Code, Signal: r.Signal}, stdout: len(r.Stdout), stderr: len(r.Stderr)}
}

type systemLine struct {
	exit           exitLine
	stdout, stderr int
}

func (s systemLine) String() string {
	return fmt.Sprintf("%s, %d bytes of stdout, %d of stderr", s.exit, s.stdout, s.stderr)
}

// Line flags on the wire: the stream in the low two bits, then partial and
// truncated.
const (
	lineStreamMask = 0x3
	linePartial    = 0x4
	lineTruncated  = 0x8
)

// Lines are a flat array [flags0, text0, flags1, text1, ...], the text as
// bin since output need not be UTF-8.
func encodeLines(e *msgpack.Encoder, ls []proc.Line) error {
	if err := e.EncodeArrayLen(2 * len(ls)); err != nil {
		return err
	}
	for i := range ls {
		l := &ls[i]
		f := uint64(l.Stream) & lineStreamMask
		if l.Partial {
			f |= linePartial
		}
		if l.Truncated {
			f |= lineTruncated
		}
		if err := e.EncodeUint(f); err != nil {
			return err
		}
		if err := e.EncodeBytes(l.Text); err != nil {
			return err
		}
	}
	return nil
}

// linesToProc turns decoded lines back into the form encodeLines takes.
func linesToProc(ls []Line) []proc.Line {
	out := make([]proc.Line, len(ls))
	for i, l := range ls {
		out[i] = proc.Line{Stream: l.Stream, Text: []byte(l.Text), Partial: l.Partial, Truncated: l.Truncated}
	}
	return out
}

func decodeLines(d *msgpack.Decoder) ([]Line, error) {
	// Each line is a flag byte and a string header: at least two bytes.
	n, err := wire.DecodeLen(d, 1)
	if err != nil {
		return nil, err
	}
	if n%2 != 0 {
		return nil, fmt.Errorf("lines: bad flat length %d", n)
	}
	out := make([]Line, n/2)
	for i := range out {
		f, err := d.DecodeUint8()
		if err != nil {
			return nil, err
		}
		s := proc.Stream(f & lineStreamMask)
		if s != proc.Stdout && s != proc.Stderr {
			return nil, fmt.Errorf("line: unknown stream %d", s)
		}
		out[i] = Line{Stream: s, Partial: f&linePartial != 0, Truncated: f&lineTruncated != 0}
		if out[i].Text, err = d.DecodeString(); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// An exit is [code, signal, stdout, stderr, truncated].
func encodeExit(e *msgpack.Encoder, x *Result) error {
	if x == nil {
		x = &Result{}
	}
	if err := e.EncodeArrayLen(5); err != nil {
		return err
	}
	if err := e.EncodeInt(int64(x.Code)); err != nil {
		return err
	}
	if err := e.EncodeString(x.Signal); err != nil {
		return err
	}
	if err := e.EncodeString(x.Stdout); err != nil {
		return err
	}
	if err := e.EncodeString(x.Stderr); err != nil {
		return err
	}
	return e.EncodeBool(x.Truncated)
}

func decodeExit(d *msgpack.Decoder) (*Result, error) {
	n, err := d.DecodeArrayLen()
	if err != nil {
		return nil, err
	}
	if n != 5 {
		return nil, fmt.Errorf("exit: %d fields, want 5", n)
	}
	x := new(Result)
	if x.Code, err = d.DecodeInt(); err != nil {
		return nil, err
	}
	if x.Signal, err = d.DecodeString(); err != nil {
		return nil, err
	}
	if x.Stdout, err = d.DecodeString(); err != nil {
		return nil, err
	}
	if x.Stderr, err = d.DecodeString(); err != nil {
		return nil, err
	}
	x.Truncated, err = d.DecodeBool()
	return x, err
}
