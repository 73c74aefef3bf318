package workspace

import (
	"bytes"
	"slices"
	"strings"
	"unicode/utf8"
)

// maxMergeText bounds a file a merge reads to join two sides line by
// line; a larger one that both sides changed is a conflict.
const maxMergeText = 1 << 20

// maxEdits bounds the edit distance diffLines looks for, so that two
// unrelated versions of a large file cost a conflict, not minutes.
const maxEdits = 2000

// isText reports whether data can be merged line by line: valid UTF-8
// without NUL bytes, at most maxMergeText bytes.
func isText(data []byte) bool {
	return len(data) <= maxMergeText && utf8.Valid(data) && bytes.IndexByte(data, 0) < 0
}

// splitLines splits s after each newline; a last line without one is
// kept as it is.
func splitLines(s string) []string {
	if s == "" {
		return nil
	}
	lines := strings.SplitAfter(s, "\n")
	if lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	return lines
}

// hunk says that base[bs:be] became lines.
type hunk struct {
	bs, be int
	lines  []string
}

// diff3Lines merges the changes from base to ours and from base to
// theirs: changes in separate places both apply; lines both added at the
// end of the file are all kept, ours first; other changes that overlap
// or touch conflict (false) unless they are the same.
func diff3Lines(base, ours, theirs []string) ([]string, bool) {
	ho, okO := diffLines(base, ours)
	ht, okT := diffLines(base, theirs)
	if !okO || !okT {
		return nil, false
	}
	var out []string
	pos, i, j := 0, 0, 0
	for i < len(ho) || j < len(ht) {
		gi, gj := i, j
		var gs, ge int
		if j >= len(ht) || i < len(ho) && ho[i].bs <= ht[j].bs {
			gs, ge = ho[i].bs, ho[i].be
			i++
		} else {
			gs, ge = ht[j].bs, ht[j].be
			j++
		}
		for { // take in every hunk of either side that overlaps or touches
			if i < len(ho) && ho[i].bs <= ge {
				ge = max(ge, ho[i].be)
				i++
			} else if j < len(ht) && ht[j].bs <= ge {
				ge = max(ge, ht[j].be)
				j++
			} else {
				break
			}
		}
		out = append(out, base[pos:gs]...)
		o, t := applyHunks(base, ho[gi:i], gs, ge), applyHunks(base, ht[gj:j], gs, ge)
		switch {
		case gi == i:
			out = append(out, t...)
		case gj == j, slices.Equal(o, t):
			out = append(out, o...)
		case gs == len(base) && ge == len(base):
			// Both only added lines at the end: keep both, ours
			// first, so that two steps appending to one log both
			// land, in the order they were merged.
			out = append(append(out, endLine(o)...), t...)
		default:
			return nil, false
		}
		pos = ge
	}
	return append(out, base[pos:]...), true
}

// endLine returns lines with a newline after the last one when it has
// none, so that lines added after them start a line of their own.
func endLine(lines []string) []string {
	if n := len(lines); n > 0 && !strings.HasSuffix(lines[n-1], "\n") {
		return append(slices.Clone(lines[:n-1]), lines[n-1]+"\n")
	}
	return lines
}

// applyHunks returns base[gs:ge] with hunks (inside it, in order) applied.
func applyHunks(base []string, hunks []hunk, gs, ge int) []string {
	var out []string
	cur := gs
	for _, h := range hunks {
		out = append(out, base[cur:h.bs]...)
		out = append(out, h.lines...)
		cur = h.be
	}
	return append(out, base[cur:ge]...)
}

// diffLines returns the hunks that turn a into b, in order, or false when
// they differ by more than maxEdits lines.
func diffLines(a, b []string) ([]hunk, bool) {
	pre := 0
	for pre < len(a) && pre < len(b) && a[pre] == b[pre] {
		pre++
	}
	suf := 0
	for suf < len(a)-pre && suf < len(b)-pre && a[len(a)-1-suf] == b[len(b)-1-suf] {
		suf++
	}
	ta, tb := a[pre:len(a)-suf], b[pre:len(b)-suf]
	pairs, ok := commonLines(ta, tb)
	if !ok {
		return nil, false
	}
	var hs []hunk
	i, j := 0, 0
	for _, p := range append(pairs, [2]int{len(ta), len(tb)}) {
		if p[0] > i || p[1] > j {
			hs = append(hs, hunk{bs: pre + i, be: pre + p[0], lines: tb[j:p[1]]})
		}
		i, j = p[0]+1, p[1]+1
	}
	return hs, true
}

// commonLines returns the index pairs of a longest common subsequence of
// a and b, in order (Myers' greedy algorithm), or false past maxEdits.
func commonLines(a, b []string) ([][2]int, bool) {
	n, m := len(a), len(b)
	off := n + m + 1
	v := make([]int, 2*off+1)
	var trace [][]int // trace[d][k+d]: the furthest x on diagonal k after d edits
	for d := 0; d <= n+m; d++ {
		if d > maxEdits {
			return nil, false
		}
		for k := -d; k <= d; k += 2 {
			var x int
			if k == -d || k != d && v[off+k-1] < v[off+k+1] {
				x = v[off+k+1]
			} else {
				x = v[off+k-1] + 1
			}
			y := x - k
			for x < n && y < m && a[x] == b[y] {
				x, y = x+1, y+1
			}
			v[off+k] = x
			if x >= n && y >= m {
				trace = append(trace, slices.Clone(v[off-d:off+d+1]))
				return backtrack(trace, n, m), true
			}
		}
		trace = append(trace, slices.Clone(v[off-d:off+d+1]))
	}
	return nil, true // not reached: d = n+m always ends
}

// backtrack walks a Myers trace back from (n, m), collecting the
// diagonal steps: the lines in common.
func backtrack(trace [][]int, n, m int) [][2]int {
	var pairs [][2]int
	x, y := n, m
	for d := len(trace) - 1; d > 0; d-- {
		prev := trace[d-1]
		at := func(k int) int { return prev[k+d-1] }
		k := x - y
		pk := k - 1
		if k == -d || k != d && at(k-1) < at(k+1) {
			pk = k + 1
		}
		px := at(pk)
		py := px - pk
		for x > px && y > py {
			x, y = x-1, y-1
			pairs = append(pairs, [2]int{x, y})
		}
		x, y = px, py
	}
	for x > 0 && y > 0 {
		x, y = x-1, y-1
		pairs = append(pairs, [2]int{x, y})
	}
	slices.Reverse(pairs)
	return pairs
}
