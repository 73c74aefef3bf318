package tools

import (
	"fmt"
	"unicode/utf8"
)

// Truncate caps s at max bytes, keeping its head and tail around a marker
// that says how much was left out, and reports whether it cut anything.
// Cuts fall on UTF-8 boundaries.
func Truncate(s string, max int) (string, bool) {
	if max <= 0 || len(s) <= max {
		return s, false
	}
	half := max / 2
	return elide(s[:half], s[len(s)-(max-half):], len(s)), true
}

// elide joins the kept head and tail of an output of total bytes around a
// marker saying how many bytes were left out, first dropping the partial
// runes the cuts left at their edges.
func elide(head, tail string, total int) string {
	head, tail = validPrefix(head), validSuffix(tail)
	return fmt.Sprintf("%s\n… [%d bytes omitted] …\n%s", head, total-len(head)-len(tail), tail)
}

// clip cuts s to max bytes on a UTF-8 boundary and marks the cut with "…".
func clip(s string, max int) string {
	if len(s) <= max {
		return s
	}
	return validPrefix(s[:max]) + "…"
}

// Tail returns the last max bytes of s, on a UTF-8 boundary.
func Tail(s string, max int) string {
	if len(s) <= max {
		return s
	}
	return "…" + validSuffix(s[len(s)-max:])
}

// validPrefix drops a trailing partial rune.
func validPrefix(s string) string {
	for i := len(s) - 1; i >= 0 && i >= len(s)-utf8.UTFMax; i-- {
		if utf8.RuneStart(s[i]) {
			if !utf8.FullRuneInString(s[i:]) {
				return s[:i]
			}
			break
		}
	}
	return s
}

// validSuffix drops leading continuation bytes of a cut rune.
func validSuffix(s string) string {
	for i := 0; i < len(s) && i < utf8.UTFMax; i++ {
		if utf8.RuneStart(s[i]) {
			return s[i:]
		}
	}
	return s
}
