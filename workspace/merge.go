package workspace

import (
	"context"
	"fmt"
	"path"
	"slices"
	"strings"
)

// MergeRequest names the manifests of a three-way merge: Base, from which
// two steps ran side by side, and what each made of it. All three are
// Owner's; the result is pinned for PlanID when set.
type MergeRequest struct{ Owner, PlanID, Base, Ours, Theirs string }

// Merged is the result of a merge: the new manifest, and the paths where
// both sides changed the same thing differently, sorted. A conflicted
// path keeps ours; theirs stays in its own manifest.
type Merged struct {
	ID        string
	Conflicts []string
}

// Merge joins the changes Ours and Theirs made to Base, path by path:
// what one side changed and the other did not is taken; when both
// changed a text file, their line changes merge unless they overlap.
// Everything else both changed — binary or large files, a file against a
// folder, a folder removed on one side while the other added inside it —
// is a conflict that keeps ours, never a silent loss. The merged
// manifest is stored (as a delta over Ours when smaller) and pinned; its
// blobs are stored first.
func (f *Files) Merge(ctx context.Context, req MergeRequest) (Merged, error) {
	var ms [3]*based
	for i, id := range []string{req.Base, req.Ours, req.Theirs} {
		b, err := f.loadOwned(ctx, id, req.Owner)
		if err != nil {
			return Merged{}, err
		}
		ms[i] = b
	}
	text := func(p string, b, o, t *ManifestEntry) (ManifestEntry, bool, error) {
		return f.mergeText(ctx, p, b, o, t)
	}
	entries, conflicts, err := mergeManifests(ms[0].m, ms[1].m, ms[2].m, text)
	if err != nil {
		return Merged{}, fmt.Errorf("merge: %w", err)
	}
	id, err := f.putManifest(ctx, &Manifest{Owner: req.Owner, Entries: entries}, ms[1], req.PlanID)
	if err != nil {
		return Merged{}, fmt.Errorf("merge: %w", err)
	}
	return Merged{ID: id, Conflicts: conflicts}, nil
}

// textMerger joins two changed versions of the file at path (b is nil or
// not a file when the base had none), reporting false for a conflict.
type textMerger func(path string, b, o, t *ManifestEntry) (ManifestEntry, bool, error)

// mergeManifests merges ours and theirs from base, path by path (see
// Merge), and returns the merged entries, sorted, and the conflicts.
func mergeManifests(base, ours, theirs *Manifest, text textMerger) ([]ManifestEntry, []string, error) {
	b, o, t := byPath(base), byPath(ours), byPath(theirs)
	paths := unionPaths(base, ours, theirs)
	result := map[string]*ManifestEntry{}
	conflict := map[string]bool{}
	for _, p := range paths {
		be, oe, te := b[p], o[p], t[p]
		res := oe
		switch {
		case sameEntry(oe, te), sameEntry(te, be):
		case sameEntry(oe, be):
			res = te
		case oe != nil && te != nil && oe.Kind == EntryFile && te.Kind == EntryFile:
			merged, ok, err := text(p, be, oe, te)
			if err != nil {
				return nil, nil, fmt.Errorf("%s: %w", p, err)
			}
			if ok {
				res = &merged
			} else {
				conflict[p] = true
			}
		default:
			conflict[p] = true
		}
		if res != nil {
			result[p] = res
		}
	}
	fixOrphans(paths, result, o, conflict)
	entries, conflicts := collectMerged(paths, result, conflict)
	return entries, conflicts, nil
}

// fixOrphans falls back to ours for an entry whose folder the merge lost
// (removed on one side, added inside on the other, or made a file) and
// for that folder, both conflicts, until every entry lies in a folder:
// ours alone is a valid tree, so this ends.
func fixOrphans(paths []string, result, ours map[string]*ManifestEntry, conflict map[string]bool) {
	setOurs := func(p string) bool {
		if sameEntry(result[p], ours[p]) {
			return false
		}
		if ours[p] == nil {
			delete(result, p)
		} else {
			result[p] = ours[p]
		}
		return true
	}
	for changed := true; changed; {
		changed = false
		for _, p := range paths {
			parent := path.Dir(p)
			if result[p] == nil || parent == "." {
				continue
			}
			if pe := result[parent]; pe != nil && pe.Kind == EntryDir {
				continue
			}
			conflict[p], conflict[parent] = true, true
			changed = setOurs(p) || changed
			changed = setOurs(parent) || changed
		}
	}
}

// collectMerged lists the merged entries and the conflicts, sorted.
func collectMerged(paths []string, result map[string]*ManifestEntry, conflict map[string]bool) ([]ManifestEntry,
	[]string) {
	entries := []ManifestEntry{}
	conflicts := []string{}
	for _, p := range paths {
		if e := result[p]; e != nil {
			entries = append(entries, *e)
		}
		if conflict[p] {
			conflicts = append(conflicts, p)
		}
	}
	return entries, conflicts
}

// byPath indexes a manifest's entries.
func byPath(m *Manifest) map[string]*ManifestEntry {
	out := make(map[string]*ManifestEntry, len(m.Entries))
	for i := range m.Entries {
		out[m.Entries[i].Path] = &m.Entries[i]
	}
	return out
}

// unionPaths returns every path of the manifests, sorted, once.
func unionPaths(ms ...*Manifest) []string {
	var paths []string
	for _, m := range ms {
		for _, e := range m.Entries {
			paths = append(paths, e.Path)
		}
	}
	slices.SortFunc(paths, strings.Compare)
	return slices.Compact(paths)
}

// sameEntry reports whether a and b (nil: absent) are the same entry.
func sameEntry(a, b *ManifestEntry) bool {
	if a == nil || b == nil {
		return a == b
	}
	return *a == *b
}

// mergeText merges two changed versions of a text file the base had,
// line by line (see diff3Lines), and stores the result; binary or large
// files, and a file both sides created, are a conflict.
func (f *Files) mergeText(ctx context.Context, p string, b, o, t *ManifestEntry) (ManifestEntry, bool, error) {
	if o.Size > maxMergeText || t.Size > maxMergeText {
		return ManifestEntry{}, false, nil
	}
	if b == nil || b.Kind != EntryFile || b.Size > maxMergeText {
		// Both created the file, differently: no lines in common to
		// join them by, nor an end both appended to.
		return ManifestEntry{}, false, nil
	}
	baseText, err := f.fetchBlob(ctx, b.Hash, maxMergeText)
	if err != nil {
		return ManifestEntry{}, false, err
	}
	ours, err := f.fetchBlob(ctx, o.Hash, maxMergeText)
	if err != nil {
		return ManifestEntry{}, false, err
	}
	theirs, err := f.fetchBlob(ctx, t.Hash, maxMergeText)
	if err != nil {
		return ManifestEntry{}, false, err
	}
	if !isText(baseText) || !isText(ours) || !isText(theirs) {
		return ManifestEntry{}, false, nil
	}
	lines, ok := diff3Lines(splitLines(string(baseText)), splitLines(string(ours)), splitLines(string(theirs)))
	if !ok {
		return ManifestEntry{}, false, nil
	}
	data := []byte(strings.Join(lines, ""))
	hash := hashOf(data)
	if _, err := f.putIfAbsent(ctx, blobKey(hash), data); err != nil {
		return ManifestEntry{}, false, fmt.Errorf("put merged blob: %w", err)
	}
	mode := o.Mode
	if o.Mode != t.Mode && b != nil && o.Mode == b.Mode {
		mode = t.Mode
	}
	return ManifestEntry{Path: p, Kind: EntryFile, Mode: mode, Size: int64(len(data)), Hash: hash}, true, nil
}
