package workspace

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/planmode/planmode/blobstore"
)

// stored is a manifest as the store keeps it: whole (version 1, as every
// manifest was before deltas, so their ids stay valid), or the
// differences from the manifest Base (version 2, which a worker that
// knows only whole manifests refuses rather than taking a delta for the
// whole list). A delta holds the entries added or changed, whole, and
// every path removed, a folder's contents listed with it. Depth counts
// the deltas down to a whole manifest.
type stored struct {
	V       int             `json:"v"`
	Owner   string          `json:"owner"`
	Base    string          `json:"base,omitempty"`
	Depth   int             `json:"depth,omitempty"`
	Entries []ManifestEntry `json:"entries"`
	Removed []string        `json:"removed,omitempty"`
}

// deltaVersion is the version of a stored delta.
const deltaVersion = 2

// maxDepth bounds a chain of deltas: a record whose delta would lie
// deeper stores a whole manifest, so loading one reads at most
// maxDepth+1.
const maxDepth = 16

// validate checks a stored form on its own: the version matches its
// kind, a delta names a base by id at a depth of 1 to maxDepth, its
// entries are sorted, unique and valid, and its removed paths clean,
// sorted, unique and not among its entries. What the chain resolves to
// is checked whole (Manifest.validate).
func (s *stored) validate() error {
	whole := s.Base == "" && s.Depth == 0 && s.Removed == nil
	switch {
	case whole && s.V != manifestVersion:
		return fmt.Errorf("version %d, not %d", s.V, manifestVersion)
	case whole:
		return nil // validated resolved
	case s.V != deltaVersion:
		return fmt.Errorf("a delta of version %d, not %d", s.V, deltaVersion)
	case !ValidManifestID(s.Base):
		return fmt.Errorf("base %q is not a manifest id", s.Base)
	case s.Depth < 1 || s.Depth > maxDepth:
		return fmt.Errorf("depth %d is not 1 to %d", s.Depth, maxDepth)
	}
	for i, e := range s.Entries {
		if err := validPath(e.Path); err != nil {
			return err
		}
		if i > 0 && s.Entries[i-1].Path >= e.Path {
			return fmt.Errorf("entry %q is out of order or repeated", e.Path)
		}
		if err := e.validate(); err != nil {
			return fmt.Errorf("entry %q: %w", e.Path, err)
		}
	}
	for i, p := range s.Removed {
		if err := validPath(p); err != nil {
			return fmt.Errorf("removed: %w", err)
		}
		if i > 0 && s.Removed[i-1] >= p {
			return fmt.Errorf("removed path %q is out of order or repeated", p)
		}
		if _, found := slices.BinarySearchFunc(s.Entries, p, byEntryPath); found {
			return fmt.Errorf("path %q is both removed and changed", p)
		}
	}
	return nil
}

// byEntryPath orders an entry against a path.
func byEntryPath(e ManifestEntry, p string) int { return strings.Compare(e.Path, p) }

// loadStored fetches manifest id as stored, checks it hashes to its id
// (else an error wrapping ErrCorrupt) and validates its stored form. A
// malformed id, a missing manifest or an invalid one is an ErrSnapshot
// refusal; a store failure is returned wrapped as it came.
func (f *Files) loadStored(ctx context.Context, id string) (*stored, error) {
	if !ValidManifestID(id) {
		return nil, refuse(ErrSnapshot, nil, "%q is not a manifest id (64 hex digits)", id)
	}
	data, err := f.getAll(ctx, manifestKey(id), maxManifestBytes)
	if errors.Is(err, blobstore.ErrNotFound) {
		// Most often a worker whose store is a folder of its own, beside
		// workers on other hosts: they must share one store.
		return nil, refuse(ErrSnapshot, err, "manifest %s does not exist in this worker's store "+
			"(workers that run the same plans must share one workspace.store)", id)
	}
	if err != nil {
		return nil, fmt.Errorf("load manifest %s: %w", id, err)
	}
	if hashOf(data) != id {
		return nil, fmt.Errorf("manifest %s: its content does not hash to its id: %w", id, ErrCorrupt)
	}
	var s stored
	if err := json.Unmarshal(data, &s); err != nil {
		return nil, refuse(ErrSnapshot, err, "manifest %s is unreadable: %v", id, err)
	}
	if err := s.validate(); err != nil {
		return nil, refuse(ErrSnapshot, err, "manifest %s is refused: %v", id, err)
	}
	return &s, nil
}

// load fetches manifest id and the chain of bases it lists changes to,
// and returns the whole manifest they resolve to, validated, and its
// depth. Each base must be of the same owner and one level shallower, so
// the chain ends within maxDepth loads and holds no cycle; a base that
// is missing, invalid or another workspace's is an ErrSnapshot refusal
// naming both manifests.
func (f *Files) load(ctx context.Context, id string) (*Manifest, int, error) {
	var chain []*stored
	for next := id; ; {
		s, err := f.loadStored(ctx, next)
		if err != nil && next != id {
			if errors.Is(err, ErrSnapshot) {
				return nil, 0, refuse(ErrSnapshot, err, "manifest %s lists changes to manifest %s: %v", id, next, err)
			}
			return nil, 0, fmt.Errorf("manifest %s: its base: %w", id, err)
		}
		if err != nil {
			return nil, 0, err
		}
		if err := chained(chain, next, s); err != nil {
			return nil, 0, refuse(ErrSnapshot, nil, "manifest %s is refused: %v", id, err)
		}
		chain = append(chain, s)
		if s.Base == "" {
			break
		}
		next = s.Base
	}
	m := &Manifest{V: manifestVersion, Owner: chain[0].Owner, Entries: chain[len(chain)-1].Entries}
	for i := len(chain) - 2; i >= 0; i-- {
		entries, err := applyDelta(m.Entries, chain[i])
		if err != nil {
			return nil, 0, refuse(ErrSnapshot, err, "manifest %s is refused: %v", id, err)
		}
		m.Entries = entries
	}
	if err := m.validate(); err != nil {
		return nil, 0, refuse(ErrSnapshot, err, "manifest %s is refused: %v", id, err)
	}
	return m, chain[0].Depth, nil
}

// chained checks that s, stored as base, may be the base of the last
// manifest of chain: of the same owner, one level shallower.
func chained(chain []*stored, base string, s *stored) error {
	if len(chain) == 0 {
		return nil
	}
	child := chain[len(chain)-1]
	if s.Owner != child.Owner {
		return fmt.Errorf("its base %s belongs to another workspace (%s, not %s)", base, s.Owner, child.Owner)
	}
	if s.Depth != child.Depth-1 {
		return fmt.Errorf("its base %s lies at depth %d, not %d", base, s.Depth, child.Depth-1)
	}
	return nil
}

// applyDelta returns base's entries (sorted) with d's removed paths taken
// out and its entries put in, sorted. A removed path base lacks is an
// error: the delta was not made from this base.
func applyDelta(base []ManifestEntry, d *stored) ([]ManifestEntry, error) {
	out := make([]ManifestEntry, 0, len(base)+len(d.Entries))
	changed, removed := d.Entries, d.Removed
	for _, e := range base {
		for len(changed) > 0 && changed[0].Path < e.Path {
			out, changed = append(out, changed[0]), changed[1:]
		}
		switch {
		case len(removed) > 0 && removed[0] == e.Path:
			removed = removed[1:]
		case len(changed) > 0 && changed[0].Path == e.Path:
			out, changed = append(out, changed[0]), changed[1:]
		case len(removed) > 0 && removed[0] < e.Path:
			return nil, fmt.Errorf("removed path %q is not in its base", removed[0])
		default:
			out = append(out, e)
		}
	}
	if len(removed) > 0 {
		return nil, fmt.Errorf("removed path %q is not in its base", removed[0])
	}
	return append(out, changed...), nil
}

// diffEntries returns what next (sorted) changed from base (sorted): the
// entries added or changed, and the paths removed.
func diffEntries(base, next []ManifestEntry) ([]ManifestEntry, []string) {
	changed := []ManifestEntry{}
	var removed []string
	i, j := 0, 0
	for i < len(base) || j < len(next) {
		switch {
		case j == len(next) || i < len(base) && base[i].Path < next[j].Path:
			removed = append(removed, base[i].Path)
			i++
		case i == len(base) || next[j].Path < base[i].Path:
			changed = append(changed, next[j])
			j++
		default:
			if base[i] != next[j] {
				changed = append(changed, next[j])
			}
			i, j = i+1, j+1
		}
	}
	return changed, removed
}

// based is a resolved manifest a new one may be stored as a delta of.
type based struct {
	id    string
	m     *Manifest
	depth int
}

// encodeStored returns the stored bytes of m — a delta over base when
// base is m's owner's, not at maxDepth, and the delta is the smaller —
// and its id. When m holds what base does it returns base's id and no
// bytes: there is nothing new to store.
func encodeStored(m *Manifest, base *based) ([]byte, string, error) {
	if m.Entries == nil {
		m.Entries = []ManifestEntry{}
	}
	whole, err := json.Marshal(stored{V: manifestVersion, Owner: m.Owner, Entries: m.Entries})
	if err != nil || base == nil || base.m.Owner != m.Owner {
		return whole, hashOf(whole), err
	}
	changed, removed := diffEntries(base.m.Entries, m.Entries)
	if len(changed) == 0 && len(removed) == 0 {
		return nil, base.id, nil
	}
	if base.depth >= maxDepth {
		return whole, hashOf(whole), nil
	}
	delta, err := json.Marshal(stored{V: deltaVersion, Owner: m.Owner, Base: base.id, Depth: base.depth + 1,
		Entries: changed, Removed: removed})
	if err != nil || len(delta) >= len(whole) {
		return whole, hashOf(whole), err
	}
	return delta, hashOf(delta), nil
}
