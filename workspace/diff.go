package workspace

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path"
	"slices"
	"strings"
)

// plan of a sync: what to remove from a folder and what to write to it
// to make it equal to a manifest, leaving alone what a record skips.
type syncPlan struct {
	writes  []ManifestEntry // in manifest order: parents first
	removes []string        // deepest first
	known   []local         // files that already match, with their hashes
}

// compare works out how the scanned folder differs from m. It hashes a
// local file only when its size and mode match the manifest's.
func compare(ctx context.Context, root *os.Root, s *scan, m *Manifest) (*syncPlan, error) {
	have := make(map[string]*local, len(s.entries))
	for i := range s.entries {
		have[s.entries[i].Path] = &s.entries[i]
	}
	left := leftAlone(s.skipped)
	p := &syncPlan{}
	want := make(map[string]bool, len(m.Entries))
	for _, w := range m.Entries {
		want[w.Path] = true
		if left.below(w.Path) {
			continue
		}
		if reason, ok := left.skipped[w.Path]; ok {
			// What the manifest names replaces a hard link, fifo or link
			// out (only its name goes); an entry that changed while
			// listed is left for the next sync.
			if reason != skipChanged {
				left.replaced[w.Path] = true
				p.removes = append(p.removes, w.Path)
				p.writes = append(p.writes, w)
			}
			continue
		}
		l := have[w.Path]
		same, err := matches(ctx, root, l, w)
		if err != nil {
			return nil, err
		}
		if same {
			if w.Kind == EntryFile {
				p.known = append(p.known, *l)
			}
			continue
		}
		if l != nil && l.Kind != w.Kind {
			if left.parents[w.Path] {
				continue // a folder holding what a record skips stays
			}
			p.removes = append(p.removes, w.Path)
		}
		p.writes = append(p.writes, w)
	}
	for _, l := range s.entries {
		if !want[l.Path] && !left.holds(l.Path) {
			p.removes = append(p.removes, l.Path)
		}
	}
	slices.SortFunc(p.removes, deepestFirst)
	return p, nil
}

// matches reports whether the local entry l (nil when missing) is the
// manifest entry w, hashing l when only its content can tell.
func matches(ctx context.Context, root *os.Root, l *local, w ManifestEntry) (bool, error) {
	if l == nil || l.Kind != w.Kind {
		return false, nil
	}
	switch w.Kind {
	case EntryDir:
		return l.Mode|0o700 == w.Mode|0o700, nil
	case EntryLink:
		return l.Target == w.Target, nil
	}
	if l.Mode != w.Mode || l.Size != w.Size {
		return false, nil
	}
	if l.Hash == "" {
		if err := ctx.Err(); err != nil {
			return false, err
		}
		hash, fi, err := hashFile(root, l)
		if errors.Is(err, errChanged) {
			return false, nil // rewritten: the sync's result is the manifest's
		}
		if err != nil {
			return false, fmt.Errorf("%s: %w", l.Path, err)
		}
		l.Hash, l.info = hash, fi
	}
	return l.Hash == w.Hash, nil
}

// deepestFirst orders paths so that what a folder holds comes before it.
func deepestFirst(a, b string) int {
	if da, db := strings.Count(a, "/"), strings.Count(b, "/"); da != db {
		return db - da
	}
	return strings.Compare(a, b)
}

// skipSet is what a sync leaves alone: the paths a record skips (unless
// the manifest names them), what lies below them, and the folders
// holding them.
type skipSet struct {
	skipped  map[string]string // path → why a record skips it
	replaced map[string]bool   // skipped paths the manifest names
	parents  map[string]bool   // folders holding a skipped path
}

// leftAlone builds the skipSet of a scan's skips.
func leftAlone(skips []Skip) skipSet {
	s := skipSet{skipped: map[string]string{}, replaced: map[string]bool{}, parents: map[string]bool{}}
	for _, sk := range skips {
		s.skipped[sk.Path] = sk.Reason
		for d := path.Dir(sk.Path); d != "."; d = path.Dir(d) {
			s.parents[d] = true
		}
	}
	return s
}

// below reports whether p lies below a skipped path left alone.
func (s skipSet) below(p string) bool {
	for d := path.Dir(p); d != "."; d = path.Dir(d) {
		if _, ok := s.skipped[d]; ok && !s.replaced[d] {
			return true
		}
	}
	return false
}

// holds reports whether removing p would remove what is left alone: p
// is skipped, lies below a skipped path, or holds one.
func (s skipSet) holds(p string) bool {
	_, skipped := s.skipped[p]
	return skipped || s.parents[p] || s.below(p)
}

// Changed lists the paths where the folder dir differs from manifest id
// (files, folders and symlinks added, removed or changed, content or
// mode), sorted; at most max (max <= 0: all), more counts the rest. What
// a record skips is not compared. It reads only files whose stat changed
// since the last record or sync, and whose size matches.
func (f *Files) Changed(ctx context.Context, dir, id string, max int) (paths []string, more int, err error) {
	m, err := f.Load(ctx, id)
	if err != nil {
		return nil, 0, err
	}
	if dir, err = f.checkDir(dir); err != nil {
		return nil, 0, err
	}
	root, err := os.OpenRoot(dir)
	if err != nil {
		return nil, 0, fmt.Errorf("changes in %s: %w", dir, err)
	}
	defer root.Close()
	s := &scan{root: root, cache: f.loadCache(dir)}
	if err := s.run(ctx); err != nil {
		return nil, 0, fmt.Errorf("changes in %s: %w", dir, err)
	}
	p, err := compare(ctx, root, s, m)
	if err != nil {
		return nil, 0, fmt.Errorf("changes in %s: %w", dir, err)
	}
	paths = p.removes
	for _, w := range p.writes {
		paths = append(paths, w.Path)
	}
	slices.Sort(paths)
	paths = slices.Compact(paths)
	if max > 0 && len(paths) > max {
		return paths[:max], len(paths) - max, nil
	}
	return paths, 0, nil
}
