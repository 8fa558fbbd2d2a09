package runtime

import (
	"fmt"

	"github.com/vmihailenco/msgpack/v5"

	"github.com/pmacs-go/pmacs-go/bus/wire"

	"github.com/pmacs-go/pmacs-go/proc"
)

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

// spawnLinesToProc turns decoded lines back into the form encodeLines
// takes.
func spawnLinesToProc(ls []SpawnLine) []proc.Line {
	out := make([]proc.Line, len(ls))
	for i, l := range ls {
		out[i] = proc.Line{Stream: l.Stream, Text: []byte(l.Text), Partial: l.Partial, Truncated: l.Truncated}
	}
	return out
}

func decodeLines(d *msgpack.Decoder) ([]SpawnLine, error) {
	// Each line is a flag byte and a string header: at least two bytes.
	n, err := wire.DecodeLen(d, 1)
	if err != nil {
		return nil, err
	}
	if n%2 != 0 {
		return nil, fmt.Errorf("lines: bad flat length %d", n)
	}
	out := make([]SpawnLine, n/2)
	for i := range out {
		f, err := d.DecodeUint8()
		if err != nil {
			return nil, err
		}
		s := proc.Stream(f & lineStreamMask)
		if s != proc.Stdout && s != proc.Stderr {
			return nil, fmt.Errorf("line: unknown stream %d", s)
		}
		out[i] = SpawnLine{Stream: s, Partial: f&linePartial != 0, Truncated: f&lineTruncated != 0}
		if out[i].Text, err = d.DecodeString(); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// An exit is [code, signal, stdout, stderr, truncated].
func encodeExit(e *msgpack.Encoder, x *SpawnResult) error {
	if x == nil {
		x = &SpawnResult{}
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

func decodeExit(d *msgpack.Decoder) (*SpawnResult, error) {
	n, err := d.DecodeArrayLen()
	if err != nil {
		return nil, err
	}
	if n != 5 {
		return nil, fmt.Errorf("exit: %d fields, want 5", n)
	}
	x := new(SpawnResult)
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
