package fuzzy

// NormalizeRune is the ASCII character r reads as in a normalizing term, or r.
func NormalizeRune(r rune) rune {
	if b, ok := normalized[r]; ok {
		return rune(b)
	}
	return r
}
