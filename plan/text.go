package plan

import "unicode/utf8"

// TruncateBytes returns s cut to at most n bytes on a rune boundary, ending
// in "…" when it was cut. It is the byte-bounded twin of Truncate, for text
// whose limit is a size (Temporal metadata, recorded refusals) rather than
// a length a reader sees.
func TruncateBytes(s string, n int) string {
	if len(s) <= n {
		return s
	}
	const ellipsis = "…"
	if n <= len(ellipsis) {
		return runePrefix(s, max(n, 0))
	}
	return runePrefix(s, n-len(ellipsis)) + ellipsis
}

// headBytes returns at most max bytes of s, cut at a rune boundary; all of
// s when max is not positive. A digest of n runes needs only the start of a
// long output: folding the whole of it would make the cost follow the
// output's size.
func headBytes(s string, max int) string {
	if max <= 0 || len(s) <= max {
		return s
	}
	return runePrefix(s, max)
}

// runePrefix returns the longest prefix of s of at most n bytes (n < len(s))
// that ends on a rune boundary.
func runePrefix(s string, n int) string {
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}
