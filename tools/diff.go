package tools

import (
	"strings"

	"github.com/aymanbagabas/go-udiff"
)

// lineDelta counts the lines added and removed between two versions of a
// file the way a line diff (git diff --numstat) does: a changed line is
// one removed and one added, and so is a moved one. The diff is udiff's
// copy of the Go tools' own, whose work is bounded, so a write of a large
// file stays cheap. Line endings do not count as changes: CRLF and LF
// lines are equal, and so are a last line with and without its newline.
func lineDelta(old, new string) (added, removed int) {
	old, new = normalizeLines(old), normalizeLines(new)
	for _, e := range udiff.Lines(old, new) {
		removed += strings.Count(old[e.Start:e.End], "\n")
		added += strings.Count(e.New, "\n")
	}
	return added, removed
}

// normalizeLines turns CRLF endings into LF and ends a non-empty s with a
// newline, so that every line, the last one too, ends with "\n".
func normalizeLines(s string) string {
	s = strings.ReplaceAll(s, "\r\n", "\n")
	if s != "" && !strings.HasSuffix(s, "\n") {
		s += "\n"
	}
	return s
}
