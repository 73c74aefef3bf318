package activities

import (
	"fmt"
	"unicode/utf8"
)

// cutRunes returns the longest prefix of s of at most n bytes that ends on
// a rune boundary.
func cutRunes(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}

// boundOutput cuts a step output to limit bytes, saying how much was cut,
// and reports whether it cut anything. The note is counted in the limit.
func boundOutput(s string, limit int) (string, bool) {
	if len(s) <= limit {
		return s, false
	}
	note := fmt.Sprintf("\n… [output truncated to %d of %d bytes]", limit, len(s))
	keep := limit - len(note)
	if keep < 0 {
		keep = 0
	}
	return cutRunes(s, keep) + note, true
}
