package workspace

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestDiff3Lines(t *testing.T) {
	base := "a\nb\nc\nd\ne\nf\ng\n"
	cases := []struct {
		name, ours, theirs, want string
		conflict                 bool
	}{
		{"nothing changed", base, base, base, false},
		{"only ours", "a\nB\nc\nd\ne\nf\ng\n", base, "a\nB\nc\nd\ne\nf\ng\n", false},
		{"only theirs", base, "a\nb\nc\nd\ne\nf\nG\n", "a\nb\nc\nd\ne\nf\nG\n", false},
		{"apart", "a\nB\nc\nd\ne\nf\ng\n", "a\nb\nc\nd\ne\nF\ng\n", "a\nB\nc\nd\ne\nF\ng\n", false},
		{"insert and delete apart", "a\nb\nnew\nc\nd\ne\nf\ng\n", "a\nb\nc\nd\ne\ng\n", "a\nb\nnew\nc\nd\ne\ng\n", false},
		{"both the same", "a\nX\nc\nd\ne\nf\ng\n", "a\nX\nc\nd\ne\nf\ng\n", "a\nX\nc\nd\ne\nf\ng\n", false},
		{"overlap", "a\nX\nc\nd\ne\nf\ng\n", "a\nY\nc\nd\ne\nf\ng\n", "", true},
		{"adjacent lines", "a\nB\nc\nd\ne\nf\ng\n", "a\nb\nC\nd\ne\nf\ng\n", "", true},
		{"both insert at one place", "a\nb\nX\nc\nd\ne\nf\ng\n", "a\nb\nY\nc\nd\ne\nf\ng\n", "", true},
		{"one deletes what the other edits", "a\nc\nd\ne\nf\ng\n", "a\nB\nc\nd\ne\nf\ng\n", "", true},
		{"no final newline", "a\nB\nc\nd\ne\nf\ng", "a\nb\nc\nd\ne\nF\ng\n", "", true},
		{"appends on both ends", "top\n" + base, base + "end\n", "top\n" + base + "end\n", false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, ok := diff3Lines(splitLines(base), splitLines(c.ours), splitLines(c.theirs))
			assert.Equal(t, !c.conflict, ok)
			if !c.conflict {
				assert.Equal(t, c.want, strings.Join(got, ""))
			}
		})
	}
}

// TestDiff3LinesAppends covers two steps that add lines to the end of
// one file, the case of a shared log or changelog: both additions land,
// ours (merged first) before theirs; any other change beside them merges
// as usual.
func TestDiff3LinesAppends(t *testing.T) {
	cases := []struct {
		name, base, ours, theirs, want string
		conflict                       bool
	}{
		{"append and append", "start\n", "start\nm2 end\n", "start\nm3 end\n", "start\nm2 end\nm3 end\n", false},
		{"to an empty file", "", "m2 start\nm2 end\n", "m3 start\nm3 end\n",
			"m2 start\nm2 end\nm3 start\nm3 end\n", false},
		{"several lines each", "a\n", "a\n1\n2\n", "a\n3\n4\n5\n", "a\n1\n2\n3\n4\n5\n", false},
		{"ours without a final newline", "a\n", "a\nx", "a\ny\n", "a\nx\ny\n", false},
		{"the same line appended", "a\n", "a\nsame\n", "a\nsame\n", "a\nsame\n", false},
		{"append and an edit apart", "a\nb\nc\n", "A\nb\nc\nx\n", "a\nb\nc\ny\n", "A\nb\nc\nx\ny\n", false},
		{"append and an edit of another line", "a\nb\nc\n", "a\nb\nc\nx\n", "A\nb\nc\n", "A\nb\nc\nx\n", false},
		{"append against an edit of the last line", "a\nb\nc\n", "a\nb\nc\nx\n", "a\nb\nC\n", "", true},
		{"append against a delete of the last line", "a\nb\nc\n", "a\nb\nc\nx\n", "a\nb\n", "", true},
		{"edit and edit of the same line", "a\nb\n", "a\nB\n", "a\nb2\n", "", true},
		{"base without a final newline", "a", "a\nx\n", "a\ny\n", "", true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, ok := diff3Lines(splitLines(c.base), splitLines(c.ours), splitLines(c.theirs))
			require.Equal(t, !c.conflict, ok)
			if !c.conflict {
				assert.Equal(t, c.want, strings.Join(got, ""))
			}
		})
	}
}

func TestDiffLinesFindsTheEditsOfALargeFile(t *testing.T) {
	var a []string
	for i := range 5000 {
		a = append(a, strings.Repeat("x", i%13)+"\n")
	}
	b := append([]string{}, a...)
	b[10], b[4000] = "changed\n", "changed too\n"
	hs, ok := diffLines(a, b)
	require.True(t, ok)
	require.Len(t, hs, 2)
	assert.Equal(t, hunk{bs: 10, be: 11, lines: []string{"changed\n"}}, hs[0])
	assert.Equal(t, hunk{bs: 4000, be: 4001, lines: []string{"changed too\n"}}, hs[1])
}

// m builds a manifest from short entry specs: "path" a file of content
// hash "path@content", "path/" a folder, "path->target" a symlink.
func m(specs ...string) *Manifest {
	out := &Manifest{Owner: owner}
	for _, s := range specs {
		switch {
		case strings.HasSuffix(s, "/"):
			out.Entries = append(out.Entries, ManifestEntry{Path: strings.TrimSuffix(s, "/"), Kind: EntryDir, Mode: 0o755})
		case strings.Contains(s, "->"):
			p, target, _ := strings.Cut(s, "->")
			out.Entries = append(out.Entries, ManifestEntry{Path: p, Kind: EntryLink, Target: target})
		default:
			p, content, _ := strings.Cut(s, "@")
			out.Entries = append(out.Entries, ManifestEntry{Path: p, Kind: EntryFile, Mode: 0o644,
				Size: int64(len(content)), Hash: hashOf([]byte(content))})
		}
	}
	return out
}

func TestMergeManifests(t *testing.T) {
	// The fake text merge joins "x.txt"'s two sides and refuses the rest.
	text := func(p string, b, o, t *ManifestEntry) (ManifestEntry, bool, error) {
		if p != "x.txt" {
			return ManifestEntry{}, false, nil
		}
		return m("x.txt@joined").Entries[0], true, nil
	}
	cases := []struct {
		name                     string
		base, ours, theirs, want *Manifest
		conflicts                []string
	}{
		{"theirs adds, ours edits", m("a@1"), m("a@2"), m("a@1", "b@1"), m("a@2", "b@1"), nil},
		{"both remove", m("a@1", "b@1"), m("b@1"), m("b@1"), m("b@1"), nil},
		{"ours removes, theirs keeps", m("a@1", "b@1"), m("b@1"), m("a@1", "b@1"), m("b@1"), nil},
		{"text merged", m("x.txt@1"), m("x.txt@2"), m("x.txt@3"), m("x.txt@joined"), nil},
		{"binary both changed", m("bin@1"), m("bin@2"), m("bin@3"), m("bin@2"), []string{"bin"}},
		{"edit against removal", m("a@1"), m("a@2"), m(), m("a@2"), []string{"a"}},
		{"removal against edit", m("a@1"), m(), m("a@2"), m(), []string{"a"}},
		{"both add differently", m(), m("a@1"), m("a@2"), m("a@1"), []string{"a"}},
		{"file against folder", m(), m("a@1"), m("a/", "a/b@1"), m("a@1"), []string{"a", "a/b"}},
		{"folder removed, added inside", m("d/", "d/x@1"), m(), m("d/", "d/x@1", "d/new@1"), m(),
			[]string{"d", "d/new"}},
		{"ours adds inside a folder theirs removed", m("d/", "d/x@1"), m("d/", "d/x@1", "d/new@1"), m(),
			m("d/", "d/new@1"), []string{"d", "d/new"}},
		{"link retargeted on both", m("l->a"), m("l->b"), m("l->c"), m("l->b"), []string{"l"}},
		{"file made a folder, theirs edits it", m("a@1"), m("a/", "a/b@1"), m("a@2"), m("a/", "a/b@1"),
			[]string{"a"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, conflicts, err := mergeManifests(c.base, c.ours, c.theirs, text)
			require.NoError(t, err)
			assert.Equal(t, c.want.Entries, nilIfEmpty(got))
			assert.Equal(t, c.conflicts, nilIfEmptyS(conflicts))
			assert.NoError(t, (&Manifest{V: 1, Owner: owner, Entries: got}).validate(), "the result is a valid tree")
		})
	}
}

func nilIfEmpty(e []ManifestEntry) []ManifestEntry {
	if len(e) == 0 {
		return nil
	}
	return e
}

func nilIfEmptyS(s []string) []string {
	if len(s) == 0 {
		return nil
	}
	return s
}

func TestMergeJoinsTextAndKeepsOursOnABinaryConflict(t *testing.T) {
	f, _ := newFiles(t)
	ctx := context.Background()
	ws := filesFixture(t)
	lines := "one\ntwo\nthree\nfour\nfive\n"
	write := func(name, content string) {
		require.NoError(t, os.WriteFile(filepath.Join(ws, name), []byte(content), 0o644))
	}
	write("notes.txt", lines)
	write("image.bin", "\x00\x01base")
	base := record(t, f, ws).ID
	write("notes.txt", "ONE\ntwo\nthree\nfour\nfive\n")
	write("image.bin", "\x00\x01ours")
	ours := record(t, f, ws).ID
	write("notes.txt", "one\ntwo\nthree\nfour\nFIVE\n")
	write("image.bin", "\x00\x01theirs")
	write("theirs.txt", "added\n")
	theirs := record(t, f, ws).ID

	merged, err := f.Merge(ctx, MergeRequest{Owner: owner, PlanID: "p", Base: base, Ours: ours, Theirs: theirs})
	require.NoError(t, err)
	assert.Equal(t, []string{"image.bin"}, merged.Conflicts)
	assert.Equal(t, ours, storedForm(t, f, merged.ID).Base, "the merge is stored as its changes to ours")
	out := filepath.Join(t.TempDir(), "merged")
	_, err = f.Sync(ctx, SyncRequest{Dir: out, Owner: owner, ID: merged.ID})
	require.NoError(t, err)
	read := func(name string) string {
		data, err := os.ReadFile(filepath.Join(out, name))
		require.NoError(t, err)
		return string(data)
	}
	assert.Equal(t, "ONE\ntwo\nthree\nfour\nFIVE\n", read("notes.txt"))
	assert.Equal(t, "\x00\x01ours", read("image.bin"), "a conflict keeps ours")
	assert.Equal(t, "added\n", read("theirs.txt"))

	_, err = f.Merge(ctx, MergeRequest{Owner: "other", Base: base, Ours: ours, Theirs: theirs})
	requireRefusal(t, err, ErrSnapshot, "belongs to another workspace")
}

// TestMergeKeepsBothAppendsToALog has two steps append to one log from
// the same base: the merged file holds both steps' lines, ours first; the
// same appends to a binary file, and a log both steps created, are
// conflicts that keep ours.
func TestMergeKeepsBothAppendsToALog(t *testing.T) {
	f, _ := newFiles(t)
	ctx := context.Background()
	ws := filesFixture(t)
	write := func(name, content string) {
		require.NoError(t, os.WriteFile(filepath.Join(ws, name), []byte(content), 0o644))
	}
	write("sidefx.log", "m1 start\nm1 end\n")
	write("data.bin", "\x00base")
	base := record(t, f, ws).ID
	write("sidefx.log", "m1 start\nm1 end\nm2 start\nm2 end\n")
	write("data.bin", "\x00base\x00m2")
	write("new.log", "m2 start\n")
	ours := record(t, f, ws).ID
	write("sidefx.log", "m1 start\nm1 end\nm3 start\nm3 end\n")
	write("data.bin", "\x00base\x00m3")
	require.NoError(t, os.Remove(filepath.Join(ws, "new.log")))
	write("new.log", "m3 start\n")
	theirs := record(t, f, ws).ID

	merged, err := f.Merge(ctx, MergeRequest{Owner: owner, PlanID: "p", Base: base, Ours: ours, Theirs: theirs})
	require.NoError(t, err)
	assert.Equal(t, []string{"data.bin", "new.log"}, merged.Conflicts,
		"binary appends cannot be joined line by line, nor two files both steps created")
	out := filepath.Join(t.TempDir(), "merged")
	_, err = f.Sync(ctx, SyncRequest{Dir: out, Owner: owner, ID: merged.ID})
	require.NoError(t, err)
	data, err := os.ReadFile(filepath.Join(out, "sidefx.log"))
	require.NoError(t, err)
	assert.Equal(t, "m1 start\nm1 end\nm2 start\nm2 end\nm3 start\nm3 end\n", string(data))
	data, err = os.ReadFile(filepath.Join(out, "data.bin"))
	require.NoError(t, err)
	assert.Equal(t, "\x00base\x00m2", string(data), "a conflict keeps ours")
}
