package proc

import (
	"bytes"
	"errors"
	"io"
	"os"
)

const (
	// readChunk is the least free space a pipe read gets: the default Linux
	// pipe capacity, so one read can empty a full pipe.
	readChunk = 64 << 10
	// BatchLines caps the lines one call of Spec.Lines receives, so a
	// consumer that takes credit per batch takes it in bounded steps.
	BatchLines = 1024
)

// splitter cuts one pipe's bytes into lines. It owns one buffer that holds
// the unfinished line plus one read; lines handed to emit alias it and are
// valid only until emit returns. Memory is bounded by MaxLine plus
// readChunk, whatever the program writes.
type splitter struct {
	stream Stream
	max    int
	emit   func([]Line) error

	buf        []byte
	start      int // first byte of the unfinished line
	scan       int // bytes before scan hold no newline
	end        int // end of valid data
	discarding bool
	lines      []Line
}

func newSplitter(stream Stream, maxLine int, emit func([]Line) error) *splitter {
	return &splitter{
		stream: stream,
		max:    maxLine,
		emit:   emit,
		buf:    make([]byte, readChunk),
	}
}

// limit is the largest the buffer ever needs: an unfinished line is at
// most max+1 bytes (a cut line waits for one byte that may be the '\r' of a
// "\r\n"), plus one read.
func (s *splitter) limit() int { return s.max + 1 + readChunk }

// run reads r to its end, emitting lines. A read error other than EOF
// (the deadline the process sets once the tree is killed) ends the output
// like EOF does: the unfinished line is flushed as partial and the error is
// returned. An emit error is returned at once.
func (s *splitter) run(r io.Reader) error {
	for {
		s.makeRoom()
		n, err := r.Read(s.buf[s.end:])
		s.end += n
		if n > 0 {
			if e := s.split(); e != nil {
				return e
			}
		}
		if err != nil {
			if e := s.flushPartial(); e != nil {
				return e
			}
			if errors.Is(err, io.EOF) {
				return nil
			}
			return err
		}
	}
}

// makeRoom moves the unfinished line to the front of the buffer and grows
// the buffer (up to limit) so that at least readChunk bytes are free, or
// whatever room limit leaves.
func (s *splitter) makeRoom() {
	if len(s.buf)-s.end >= readChunk {
		return
	}
	if s.start > 0 {
		n := copy(s.buf, s.buf[s.start:s.end])
		s.scan -= s.start
		s.end = n
		s.start = 0
	}
	if len(s.buf)-s.end >= readChunk || len(s.buf) >= s.limit() {
		return
	}
	size := min(max(2*len(s.buf), s.end+readChunk), s.limit())
	nb := make([]byte, size)
	copy(nb, s.buf[:s.end])
	s.buf = nb
}

// split emits every complete line in the buffer, and cuts the unfinished
// line once it is longer than max.
func (s *splitter) split() error {
	for {
		i := bytes.IndexByte(s.buf[s.scan:s.end], '\n')
		if i < 0 {
			break
		}
		nl := s.scan + i
		if s.discarding {
			s.discarding = false
		} else {
			text := s.buf[s.start:nl]
			if n := len(text); n > 0 && text[n-1] == '\r' {
				text = text[:n-1]
			}
			trunc := len(text) > s.max
			if trunc {
				text = text[:s.max]
			}
			if err := s.add(Line{Stream: s.stream, Text: text, Truncated: trunc}); err != nil {
				return err
			}
		}
		s.start, s.scan = nl+1, nl+1
	}
	s.scan = s.end
	pending := s.end - s.start
	switch {
	case s.discarding:
		s.start = s.end
	case pending > s.max+1 || (pending == s.max+1 && s.buf[s.end-1] != '\r'):
		// Too long, and not a line of exactly max bytes waiting for the
		// '\n' of its "\r\n": cut it, and drop the rest up to its newline.
		if err := s.add(Line{Stream: s.stream, Text: s.buf[s.start : s.start+s.max], Truncated: true}); err != nil {
			return err
		}
		s.discarding = true
		s.start = s.end
	}
	return s.flush()
}

func (s *splitter) add(l Line) error {
	s.lines = append(s.lines, l)
	if len(s.lines) >= BatchLines {
		return s.flush()
	}
	return nil
}

func (s *splitter) flush() error {
	if len(s.lines) == 0 {
		return nil
	}
	err := s.emit(s.lines)
	clear(s.lines) // drop the aliases into buf
	s.lines = s.lines[:0]
	return err
}

// flushPartial emits the unfinished line at the end of the output.
func (s *splitter) flushPartial() error {
	if s.discarding || s.end == s.start {
		s.start, s.scan = s.end, s.end
		return nil
	}
	text := s.buf[s.start:s.end]
	l := Line{Stream: s.stream, Text: text, Partial: true}
	if len(text) > s.max {
		// Cut like any other line: Truncated says it is not whole.
		l = Line{Stream: s.stream, Text: text[:s.max], Truncated: true}
	}
	s.start, s.scan = s.end, s.end
	if err := s.add(l); err != nil {
		return err
	}
	return s.flush()
}

// drain reads r to its end and throws the bytes away: after the consumer
// failed, the program must still not block on a full pipe.
func drain(r *os.File) {
	buf := make([]byte, readChunk)
	for {
		if _, err := r.Read(buf); err != nil {
			return
		}
	}
}
