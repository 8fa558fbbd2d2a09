package grep

import "bytes"

// finder finds a needle, exactly or with ASCII case folding, in two steps: a scan for
// candidate positions where two of the needle's rarest bytes (in either case when folding)
// sit at their distance apart, then a check of the whole needle at each candidate. Checking
// two bytes at once makes candidates rare even when each byte alone is common (a lower-case
// letter in both its cases, or the 'f' of "func"), and on amd64 the scan tests 16 or 32
// positions per step (finder_amd64.s).
type finder struct {
	needle []byte // lowered ASCII letters when fold
	fold   bool
	i1, i2 int  // positions in needle of the two bytes scanned for, i1 <= i2
	a1, b1 byte // the byte at i1, in its two cases (equal when it has one)
	a2, b2 byte // the byte at i2 likewise
}

func newFinder(needle []byte, fold bool) *finder {
	f := &finder{needle: bytes.Clone(needle), fold: fold}
	rank := func(b byte) int { return int(byteRank[b]) }
	if fold {
		for i, b := range f.needle {
			f.needle[i] = lowerASCII(b)
		}
		// A letter is found in both cases: its count is about that of the commoner one.
		rank = func(b byte) int { return int(max(byteRank[b], byteRank[upperASCII(b)])) }
	}
	// The rarest position, then the rarest other one, preferring another byte value.
	for i, b := range f.needle {
		if rank(b) < rank(f.needle[f.i1]) {
			f.i1 = i
		}
	}
	f.i2 = -1
	for i, b := range f.needle {
		if i == f.i1 {
			continue
		}
		if f.i2 < 0 {
			f.i2 = i
			continue
		}
		cur := f.needle[f.i2]
		sameNow, sameCur := b == f.needle[f.i1], cur == f.needle[f.i1]
		if (sameCur && !sameNow) || (sameCur == sameNow && rank(b) < rank(cur)) {
			f.i2 = i
		}
	}
	if f.i2 < 0 {
		f.i2 = f.i1 // a one-byte needle
	}
	if f.i2 < f.i1 {
		f.i1, f.i2 = f.i2, f.i1
	}
	f.a1, f.b1 = f.cases(f.needle[f.i1])
	f.a2, f.b2 = f.cases(f.needle[f.i2])
	return f
}

func (f *finder) cases(b byte) (byte, byte) {
	if f.fold {
		return b, upperASCII(b)
	}
	return b, b
}

func lowerASCII(b byte) byte {
	if 'A' <= b && b <= 'Z' {
		return b + ('a' - 'A')
	}
	return b
}

func upperASCII(b byte) byte {
	if 'a' <= b && b <= 'z' {
		return b - ('a' - 'A')
	}
	return b
}

// index returns the offset of the first occurrence of the needle in h, or -1.
func (f *finder) index(h []byte) int {
	n := len(f.needle)
	for s := 0; s <= len(h)-n; s++ {
		c := f.candidate(h[s:])
		if c < 0 {
			return -1
		}
		s += c
		if s > len(h)-n {
			return -1 // candidates come in order: no later one fits either
		}
		if f.equalAt(h[s : s+n]) {
			return s
		}
	}
	return -1
}

// equalAt reports whether h, as long as the needle, is the needle.
func (f *finder) equalAt(h []byte) bool {
	if !f.fold {
		return string(h) == string(f.needle)
	}
	for i, nb := range f.needle {
		if lowerASCII(h[i]) != nb {
			return false
		}
	}
	return true
}

// candidate returns the first s with h[s+i1] in {a1, b1} and h[s+i2] in {a2, b2}, or -1.
func (f *finder) candidate(h []byte) int {
	s := 0
	if block := pairBlock; block > 0 && len(h)-f.i2 >= block {
		if c := pairIndex(h, f.i1, f.i2, f.a1, f.b1, f.a2, f.b2); c >= 0 {
			return c
		}
		s = (len(h) - f.i2) / block * block // the whole blocks were scanned
	}
	return f.candidateFrom(h, s)
}

// candidateFrom is candidate from s on, with the vectorised bytes.IndexByte over the first
// byte's cases (both scans merged in order), then a test of the second byte.
func (f *finder) candidateFrom(h []byte, s int) int {
	// Positions the first byte may hold for its pair to fit in h.
	d := f.i2 - f.i1
	end := len(h) - d
	if s+f.i1 >= end {
		return -1
	}
	zone := h[:end]
	if f.a1 == f.b1 {
		for p := s + f.i1; p < len(zone); p++ {
			i := bytes.IndexByte(zone[p:], f.a1)
			if i < 0 {
				return -1
			}
			p += i
			if c := h[p+d]; c == f.a2 || c == f.b2 {
				return p - f.i1
			}
		}
		return -1
	}
	nextA, nextB := indexFrom(zone, s+f.i1, f.a1), indexFrom(zone, s+f.i1, f.b1)
	for nextA >= 0 || nextB >= 0 {
		p := nextA
		if p < 0 || (nextB >= 0 && nextB < p) {
			p = nextB
		}
		if c := h[p+d]; c == f.a2 || c == f.b2 {
			return p - f.i1
		}
		if p == nextA {
			nextA = indexFrom(zone, p+1, f.a1)
		} else {
			nextB = indexFrom(zone, p+1, f.b1)
		}
	}
	return -1
}

func indexFrom(h []byte, from int, b byte) int {
	if from >= len(h) {
		return -1
	}
	i := bytes.IndexByte(h[from:], b)
	if i < 0 {
		return -1
	}
	return from + i
}
