package fuzzy

// Scoring follows the published shape of fzf's "v2" algorithm (a Smith-Waterman style
// alignment without omissions) so that rankings agree with fzf: the same constants, the
// same character classes and the same tie rules. The code works on bytes: a text with
// non-ASCII characters is first recoded to one byte per character (see recode in
// unicode.go), so that classes, case folding and gaps follow fzf's characters.

const (
	scoreMatch        = 16
	scoreGapStart     = -3
	scoreGapExtension = -1

	// A boundary bonus is worth half a match, so an acronym whose letters sit more than
	// about eight characters apart loses to a tighter fuzzy match.
	bonusBoundary = scoreMatch / 2
	bonusNonWord  = scoreMatch / 2
	// camelCase and letter-to-digit transitions do not come with a one-character gap the way
	// foo-bar does, so they earn one point less than a boundary.
	bonusCamel123 = bonusBoundary + scoreGapExtension
	// Every character of a consecutive run earns at least this, which pays back the gap a
	// split run would have cost.
	bonusConsecutive = -(scoreGapStart + scoreGapExtension)
	// The first typed character matters most, so its bonus counts twice.
	bonusFirstCharMultiplier = 2
	// After whitespace or at the start of the text (fzf's "default" scheme).
	bonusBoundaryWhite = bonusBoundary + 2
	// After one of / , : ; |.
	bonusBoundaryDelimiter = bonusBoundary + 1
)

type charClass uint8

// The order matters: classes above classNonWord are word characters, and classes up to
// classDelimiter end a word for the exact-boundary term.
const (
	classWhite charClass = iota
	classNonWord
	classDelimiter
	classLower
	classUpper
	classLetter
	classNumber
	numClasses
)

// initialClass is the class assumed before the first byte, making the start of a text a
// word boundary after whitespace.
const initialClass = classWhite

var (
	lowerTable [256]byte
	byteClass  [256]charClass
	bonusTable [numClasses][numClasses]int16
)

func init() {
	for i := range byteClass {
		b := byte(i)
		lowerTable[i] = fold(b)
		c := classNonWord
		switch {
		case b >= 'a' && b <= 'z':
			c = classLower
		case b >= 'A' && b <= 'Z':
			c = classUpper
		case b >= '0' && b <= '9':
			c = classNumber
		case b == ' ' || b == '\t' || b == '\n' || b == '\v' || b == '\f' || b == '\r':
			c = classWhite
		case b == '/' || b == ',' || b == ':' || b == ';' || b == '|':
			c = classDelimiter
		case b >= 0x80:
			c = classLetter
		}
		byteClass[i] = c
	}
	for p := charClass(0); p < numClasses; p++ {
		for c := charClass(0); c < numClasses; c++ {
			bonusTable[p][c] = bonusBetween(p, c)
		}
	}
}

func bonusBetween(prev, cur charClass) int16 {
	if cur > classNonWord {
		switch prev {
		case classWhite:
			return bonusBoundaryWhite
		case classDelimiter:
			return bonusBoundaryDelimiter
		case classNonWord:
			return bonusBoundary
		}
	}
	if prev == classLower && cur == classUpper || prev != classNumber && cur == classNumber {
		return bonusCamel123
	}
	switch cur {
	case classNonWord, classDelimiter:
		return bonusNonWord
	case classWhite:
		return bonusBoundaryWhite
	}
	return 0
}

func bonusAt(text []byte, i int) int16 {
	if i == 0 {
		return bonusBoundaryWhite
	}
	return bonusTable[byteClass[text[i-1]]][byteClass[text[i]]]
}

func fold(b byte) byte {
	if b >= 'A' && b <= 'Z' {
		return b + 32
	}
	return b
}

func max16(a, b int16) int16 {
	if a > b {
		return a
	}
	return b
}

// maxCells bounds the alignment matrix; a longer text is scored by the linear greedy pass,
// which keeps the work per candidate (and so the cancel latency) bounded.
const maxCells = 100 * 1024

// scratch is one goroutine's reusable memory for scoring.
type scratch struct {
	// end is, after a fuzzy term matched, where its leftmost in-order match ends (the offset
	// of its last byte): a term that extends this one can only match past it.
	end   int
	h, c  []int16
	bonus []int16
	low   []byte
	first []int
	lim   []int
	pos   []int
	// rh, rc, rfb and rgap are rollingScore's column: score, run length, run's first
	// bonus and gap state per pattern byte.
	rh, rc, rfb []int16
	rgap        []bool
	// recoded and offs are a non-ASCII text recoded one byte per character (see
	// recode), without and with normalization, and each character's byte offset.
	recoded [2][]byte
	offs    [2][]int
}

func (s *scratch) grow(cells, n, m int) {
	if cap(s.h) < cells {
		s.h = make([]int16, cells)
		s.c = make([]int16, cells)
	}
	s.h, s.c = s.h[:cells], s.c[:cells]
	if cap(s.bonus) < n {
		s.bonus = make([]int16, n)
		s.low = make([]byte, n)
	}
	s.bonus, s.low = s.bonus[:n], s.low[:n]
	if cap(s.first) < m {
		s.first = make([]int, m)
		s.lim = make([]int, m)
	}
	s.first, s.lim = s.first[:m], s.lim[:m]
}

// indexFold returns the first index at or after from holding b, or its upper case when the
// search ignores case (b is then already lower case).
func indexFold(text []byte, b byte, from int, cs bool) int {
	rest := text[from:]
	i := indexByte(rest, b)
	var up byte
	if !cs && b >= 'a' && b <= 'z' {
		up = b - 32
	} else if !cs {
		up = upperCode(b)
	}
	if up != 0 {
		lim := rest
		if i >= 0 {
			lim = rest[:i]
		}
		if j := indexByte(lim, up); j >= 0 {
			i = j
		}
	}
	if i < 0 {
		return -1
	}
	return from + i
}

// span finds the first in-order occurrence of pat's first byte and the last occurrence of
// its last byte after an in-order match (setting s.end), or ok=false when pat is not a subsequence. Paths
// are short, so one folded byte loop beats calls into bytes.IndexByte.
func (s *scratch) span(text, pat []byte, cs bool) (first, last int, ok bool) {
	k, m := 0, len(pat)
	want := pat[0]
	i := 0
	for ; i < len(text); i++ {
		b := text[i]
		if !cs {
			b = lowerTable[b]
		}
		if b == want {
			if k == 0 {
				first = i
			}
			k++
			if k == m {
				break
			}
			want = pat[k]
		}
	}
	if k < m {
		return 0, 0, false
	}
	last = i
	s.end = i
	for j := len(text) - 1; j > last; j-- {
		b := text[j]
		if !cs {
			b = lowerTable[b]
		}
		if b == want {
			return first, j, true
		}
	}
	return first, last, true
}

// fuzzyScore aligns pat against text and returns the best score; with positions it also
// appends the matched byte offsets (ascending) to s.pos.
func (s *scratch) fuzzyScore(text, pat []byte, cs, withPos bool) (int, bool) {
	m := len(pat)
	if m == 0 {
		return 0, true
	}
	if m > len(text) {
		return 0, false
	}
	if m == 1 {
		return s.singleScore(text, pat[0], cs, withPos)
	}
	first, last, ok := s.span(text, pat, cs)
	if !ok {
		return 0, false
	}
	// The bound is on the whole text, not the matched span, as in fzf, so that the two pick
	// the same alignment for every candidate.
	if len(text)*m > maxCells {
		return s.greedyScore(text, pat, cs, withPos)
	}
	if !withPos {
		return s.rollingScore(text, pat, cs, first, last), true
	}
	n := last - first + 1
	s.grow(n*m, n, m)
	low, bonus, fcol := s.low, s.bonus, s.first

	prev := initialClass
	if first > 0 {
		prev = byteClass[text[first-1]]
	}
	p0 := pat[0]
	best, bestCol := int16(0), 0
	h0, c0 := s.h[:n], s.c[:n]
	var prevH int16
	inGap := false
	next := 0
	for k := 0; k < n; k++ {
		b := text[first+k]
		cl := byteClass[b]
		if !cs && cl == classUpper {
			b = lowerTable[b]
		}
		low[k] = b
		bo := bonusTable[prev][cl]
		bonus[k] = bo
		prev = cl
		if next < m && b == pat[next] {
			fcol[next] = k
			next++
		}
		if b == p0 {
			sc := scoreMatch + bo*bonusFirstCharMultiplier
			h0[k], c0[k] = sc, 1
			if m == 1 && sc > best {
				best, bestCol = sc, k
				if bo >= bonusBoundary {
					break
				}
			}
			inGap = false
		} else {
			g := int16(scoreGapStart)
			if inGap {
				g = scoreGapExtension
			}
			h0[k], c0[k] = max16(prevH+g, 0), 0
			inGap = true
		}
		prevH = h0[k]
	}
	if m == 1 {
		if withPos {
			s.pos = append(s.pos, first+bestCol)
		}
		return int(best), true
	}
	// Row i feeds row i+1 only up to the last column where pat[i+1] can still be followed
	// by the rest of the pattern, so the cells right of that are never read.
	lim := s.lim
	lim[m-1] = n - 1
	lastAt := n - 1
	for i := m - 2; i >= 1; i-- {
		lim[i] = lastAt - 1
		k := lastAt - 1
		for k > fcol[i] && low[k] != pat[i] {
			k--
		}
		lastAt = k
	}
	for i := 1; i < m; i++ {
		row := s.h[i*n : (i+1)*n]
		crow := s.c[i*n : (i+1)*n]
		up := s.h[(i-1)*n : i*n]
		cup := s.c[(i-1)*n : i*n]
		pc := pat[i]
		f, end := fcol[i], lim[i]+1
		if withPos {
			// Only the backtrace reads outside the computed columns.
			clear(row[:f])
			clear(crow[:f])
			clear(row[end:])
			clear(crow[end:])
		}
		inGap := false
		left := int16(0)
		for k := f; k < end; k++ {
			g := int16(scoreGapStart)
			if inGap {
				g = scoreGapExtension
			}
			gap := left + g
			if low[k] != pc {
				// No match here: only the gap carries on.
				crow[k] = 0
				inGap = gap > 0
				left = max16(gap, 0)
				row[k] = left
				continue
			}
			var diag, run int16
			{
				diag = up[k-1] + scoreMatch
				bo := bonus[k]
				run = cup[k-1] + 1
				if run > 1 {
					fb := bonus[k-int(run)+1]
					if bo >= bonusBoundary && bo > fb {
						run = 1
					} else {
						bo = max16(bo, max16(bonusConsecutive, fb))
					}
				}
				if diag+bo < gap {
					diag += bonus[k]
					run = 0
				} else {
					diag += bo
				}
			}
			crow[k] = run
			inGap = diag < gap
			sc := max16(max16(diag, gap), 0)
			row[k] = sc
			left = sc
			if i == m-1 && sc > best {
				best, bestCol = sc, k
			}
		}
	}
	if withPos {
		s.backtrace(first, n, m, bestCol)
	}
	return int(best), true
}

// rollingScore computes the same best score as fuzzyScore's matrix, column by column with
// one cell per pattern byte, when no positions are wanted: no matrix is written, so a
// bounded refinement that aligns many candidates does so at a fraction of the cost. Row i
// joins at the column where the leftmost match places pat[i] (as the matrix's rows start
// there); a cell carries its score, its run length and the bonus of its run's first byte.
func (s *scratch) rollingScore(text, pat []byte, cs bool, first, last int) int {
	m := len(pat)
	if cap(s.rh) < m {
		s.rh = make([]int16, m)
		s.rc = make([]int16, m)
		s.rfb = make([]int16, m)
		s.rgap = make([]bool, m)
	}
	h, c, fbs, gaps := s.rh[:m], s.rc[:m], s.rfb[:m], s.rgap[:m]
	clear(h)
	clear(c)
	clear(fbs)
	clear(gaps)
	fold := &lowerTable
	if cs {
		fold = &identityTable
	}
	prev := initialClass
	if first > 0 {
		prev = byteClass[text[first-1]]
	}
	p0 := pat[0]
	best := int16(0)
	active := 0 // rows 0..active-1 have joined
	for k := first; k <= last; k++ {
		raw := text[k]
		cl := byteClass[raw]
		b := fold[raw]
		bonus := bonusTable[prev][cl]
		prev = cl
		if active < m && b == pat[active] {
			active++
		}
		// Rows read the previous column of the row above, so go bottom up.
		for i := active - 1; i >= 1; i-- {
			g := int16(scoreGapStart)
			if gaps[i] {
				g = scoreGapExtension
			}
			gap := h[i] + g
			if b != pat[i] {
				c[i] = 0
				gaps[i] = gap > 0
				h[i] = max16(gap, 0)
				continue
			}
			diag := h[i-1] + scoreMatch
			bo := bonus
			run := c[i-1] + 1
			fb := bonus
			if run > 1 {
				upFb := fbs[i-1]
				if bo >= bonusBoundary && bo > upFb {
					run = 1
				} else {
					bo = max16(bo, max16(bonusConsecutive, upFb))
					fb = upFb
				}
			}
			if diag+bo < gap {
				diag += bonus
				run = 0
			} else {
				diag += bo
			}
			c[i], fbs[i] = run, fb
			gaps[i] = diag < gap
			sc := max16(max16(diag, gap), 0)
			h[i] = sc
			if i == m-1 && sc > best {
				best = sc
			}
		}
		if b == p0 {
			h[0], c[0], fbs[0] = scoreMatch+bonus*bonusFirstCharMultiplier, 1, bonus
			gaps[0] = false
		} else {
			g := int16(scoreGapStart)
			if gaps[0] {
				g = scoreGapExtension
			}
			h[0], c[0] = max16(h[0]+g, 0), 0
			gaps[0] = true
		}
	}
	return int(best)
}

// identityTable maps every byte to itself, the fold of a case-sensitive term.
var identityTable = func() (t [256]byte) {
	for i := range t {
		t[i] = byte(i)
	}
	return t
}()

// singleScore is the one-character query, the first keystroke, when nearly every
// candidate matches: the best occurrence is the one with the largest bonus, the first at a
// word boundary ending the scan, so no matrix is needed.
func (s *scratch) singleScore(text []byte, p byte, cs, withPos bool) (int, bool) {
	best, at := int16(-1), -1
	for k := 0; k < len(text); k++ {
		b := text[k]
		if !cs {
			b = lowerTable[b]
		}
		if b != p {
			continue
		}
		if at < 0 {
			s.end = k
		}
		prev := initialClass
		if k > 0 {
			prev = byteClass[text[k-1]]
		}
		bo := bonusTable[prev][byteClass[text[k]]]
		if bo > best {
			best, at = bo, k
			if bo >= bonusBoundary {
				break
			}
		}
	}
	if at < 0 {
		return 0, false
	}
	if withPos {
		s.pos = append(s.pos, at)
	}
	return scoreMatch + int(best)*bonusFirstCharMultiplier, true
}

// backtrace walks the matrix from the best cell of the last row back to the first row,
// preferring a match over a gap of equal score inside a consecutive run.
func (s *scratch) backtrace(first, n, m, col int) {
	start := len(s.pos)
	i, k := m-1, col
	preferMatch := true
	for {
		at := i*n + k
		h := s.h[at]
		var diag, left int16
		if i > 0 && k >= s.first[i] {
			diag = s.h[at-n-1]
		}
		if k > s.first[i] {
			left = s.h[at-1]
		}
		row := i
		if h > diag && (h > left || h == left && preferMatch) {
			s.pos = append(s.pos, first+k)
			if i == 0 {
				break
			}
			i--
		}
		preferMatch = s.c[row*n+k] > 1 || row+1 < m && k+1 < n && s.c[(row+1)*n+k+1] > 0
		k--
	}
	p := s.pos[start:]
	for a, b := 0, len(p)-1; a < b; a, b = a+1, b-1 {
		p[a], p[b] = p[b], p[a]
	}
}

// greedyScore is the linear fallback for very long texts: the first in-order match,
// shortened from its end, scored like an alignment.
func (s *scratch) greedyScore(text, pat []byte, cs, withPos bool) (int, bool) {
	k, end := 0, -1
	for i := 0; i < len(text); i++ {
		b := text[i]
		if !cs {
			b = lowerTable[b]
		}
		if b == pat[k] {
			k++
			if k == len(pat) {
				end = i + 1
				break
			}
		}
	}
	if end < 0 {
		return 0, false
	}
	k = len(pat) - 1
	start := end - 1
	for i := end - 1; i >= 0; i-- {
		b := text[i]
		if !cs {
			b = lowerTable[b]
		}
		if b == pat[k] {
			k--
			if k < 0 {
				start = i
				break
			}
		}
	}
	return s.spanScore(text, pat, cs, start, end, withPos), true
}

// spanScore scores pat matched greedily inside text[start:end] with the alignment's rules;
// exact, prefix and suffix terms use it on their contiguous span.
func (s *scratch) spanScore(text, pat []byte, cs bool, start, end int, withPos bool) int {
	prev := initialClass
	if start > 0 {
		prev = byteClass[text[start-1]]
	}
	score, k, run := 0, 0, 0
	inGap := false
	var firstBonus int16
	for i := start; i < end; i++ {
		b := text[i]
		cl := byteClass[b]
		if !cs {
			b = lowerTable[b]
		}
		if k < len(pat) && b == pat[k] {
			if withPos {
				s.pos = append(s.pos, i)
			}
			score += scoreMatch
			bo := bonusTable[prev][cl]
			if run == 0 {
				firstBonus = bo
			} else {
				if bo >= bonusBoundary && bo > firstBonus {
					firstBonus = bo
				}
				bo = max16(max16(bo, firstBonus), bonusConsecutive)
			}
			if k == 0 {
				score += int(bo) * bonusFirstCharMultiplier
			} else {
				score += int(bo)
			}
			inGap = false
			run++
			k++
		} else {
			if inGap {
				score += scoreGapExtension
			} else {
				score += scoreGapStart
			}
			inGap = true
			run = 0
			firstBonus = 0
		}
		prev = cl
	}
	return score
}

func equalFold(a, pat []byte, cs bool) bool {
	if len(a) != len(pat) {
		return false
	}
	for i, b := range a {
		if !cs {
			b = lowerTable[b]
		}
		if b != pat[i] {
			return false
		}
	}
	return true
}

// exactScore finds pat as a substring, preferring the occurrence whose first byte has the
// largest bonus (the first one at a word boundary ends the search). With boundary set the
// occurrence must also start and end at word edges, and the score rewards that instead.
func (s *scratch) exactScore(text, pat []byte, cs, boundary, withPos bool) (int, bool) {
	m := len(pat)
	if m == 0 {
		return 0, true
	}
	best, bestBonus := -1, int16(-1)
	for at := 0; at+m <= len(text); {
		i := indexFold(text, pat[0], at, cs)
		if i < 0 || i+m > len(text) {
			break
		}
		at = i + 1
		if !equalFold(text[i:i+m], pat, cs) {
			continue
		}
		bo := bonusAt(text, i)
		if boundary {
			if bo < bonusBoundary || i > 0 && byteClass[text[i-1]] > classDelimiter {
				continue
			}
			if e := i + m; e < len(text) && byteClass[text[e]] > classDelimiter {
				continue
			}
		}
		if bo > bestBonus {
			best, bestBonus = i, bo
		}
		if bo >= bonusBoundary {
			break
		}
	}
	if best < 0 {
		return 0, false
	}
	end := best + m
	if !boundary {
		return s.spanScore(text, pat, cs, best, end, withPos), true
	}
	if withPos {
		for i := best; i < end; i++ {
			s.pos = append(s.pos, i)
		}
	}
	// An underscore edge ranks below other boundaries.
	score := int(bestBonus)
	deduct := int(bestBonus-bonusBoundary) + 1
	if best > 0 && text[best-1] == '_' {
		score -= deduct + 1
		deduct = 1
	}
	if end < len(text) && text[end] == '_' {
		score -= deduct
	}
	return score + scoreMatch*m + bonusBoundaryWhite*(m+1), true
}

// isSpace reports ASCII whitespace, what trimming and the anchored terms skip.
func isSpace(b byte) bool { return b < 0x80 && byteClass[b] == classWhite }

func leadingSpace(text []byte) int {
	i := 0
	for i < len(text) && isSpace(text[i]) {
		i++
	}
	return i
}

func trailingSpace(text []byte) int {
	i := 0
	for i < len(text) && isSpace(text[len(text)-1-i]) {
		i++
	}
	return i
}

// prefixScore matches pat at the start of text, ignoring leading whitespace unless pat
// itself starts with a space.
func (s *scratch) prefixScore(text, pat []byte, cs, withPos bool) (int, bool) {
	start := 0
	if !isSpace(pat[0]) {
		start = leadingSpace(text)
	}
	end := start + len(pat)
	if end > len(text) || !equalFold(text[start:end], pat, cs) {
		return 0, false
	}
	return s.spanScore(text, pat, cs, start, end, withPos), true
}

// suffixScore matches pat at the end of text, ignoring trailing whitespace unless pat
// itself ends with a space.
func (s *scratch) suffixScore(text, pat []byte, cs, withPos bool) (int, bool) {
	end := len(text)
	if !isSpace(pat[len(pat)-1]) {
		end -= trailingSpace(text)
	}
	start := end - len(pat)
	if start < 0 || !equalFold(text[start:end], pat, cs) {
		return 0, false
	}
	return s.spanScore(text, pat, cs, start, end, withPos), true
}

// equalScore matches when text, trimmed of whitespace, is pat.
func (s *scratch) equalScore(text, pat []byte, cs, withPos bool) (int, bool) {
	start, end := 0, len(text)
	if !isSpace(pat[0]) {
		start = leadingSpace(text)
	}
	if !isSpace(pat[len(pat)-1]) {
		end -= trailingSpace(text)
	}
	if end-start != len(pat) || !equalFold(text[start:end], pat, cs) {
		return 0, false
	}
	if withPos {
		for i := start; i < end; i++ {
			s.pos = append(s.pos, i)
		}
	}
	m := len(pat)
	return (scoreMatch+bonusBoundaryWhite)*m + (bonusFirstCharMultiplier-1)*bonusBoundaryWhite, true
}
