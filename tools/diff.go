package tools

import "strings"

// lineDelta approximates the lines added and removed between two versions
// of a file without an LCS diff: a line is added when the new version holds
// it more often than the old one, removed in the opposite case (multiset
// difference). Moved lines count as unchanged.
func lineDelta(old, new string) (added, removed int) {
	counts := map[string]int{}
	for _, l := range splitLines(old) {
		counts[l]--
	}
	for _, l := range splitLines(new) {
		counts[l]++
	}
	for _, c := range counts {
		if c > 0 {
			added += c
		} else {
			removed -= c
		}
	}
	return added, removed
}

// splitLines splits s into lines without their endings; "" has no lines.
func splitLines(s string) []string {
	if s == "" {
		return nil
	}
	s = strings.TrimSuffix(s, "\n")
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		lines[i] = strings.TrimSuffix(l, "\r")
	}
	return lines
}
