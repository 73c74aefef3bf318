package workspace

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"sort"
	"strings"
	"time"
)

// PruneSnapshots removes the snapshots taken before now - retention: each
// snapshot's tree and its manifest (<id>.json, whose modification time is
// when the snapshot was taken, see takeSnapshot), and the temporary copies
// an interrupted snapshot left behind. It returns the ids removed, sorted.
// A missing snapshot directory has nothing to prune; a retention of zero
// or less keeps everything. A plan whose snapshot is gone can no longer
// be rolled back (the restore is an ErrSnapshot refusal), so the retention
// is how long plans stay restorable.
func (r Root) PruneSnapshots(now time.Time, retention time.Duration) ([]string, error) {
	if retention <= 0 {
		return nil, nil
	}
	store, err := os.OpenRoot(r.snapshotDir())
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("prune snapshots: %w", err)
	}
	defer store.Close()
	entries, err := fs.ReadDir(store.FS(), ".")
	if err != nil {
		return nil, fmt.Errorf("prune snapshots: %w", err)
	}
	cutoff := now.Add(-retention)
	var removed []string
	var errs []error
	for _, e := range entries {
		id, ok := expiredSnapshot(e, cutoff)
		if !ok {
			continue
		}
		if err := removeSnapshot(store, e.Name(), id); err != nil {
			errs = append(errs, err)
			continue
		}
		removed = append(removed, id)
	}
	sort.Strings(removed)
	return removed, errors.Join(errs...)
}

// expiredSnapshot reports whether the directory entry e is a snapshot's
// manifest or a leftover temporary copy or manifest modified before
// cutoff, and the snapshot id it stands for. Snapshot trees are pruned with their
// manifest, never on their own: a tree's time is when it was copied from,
// not when it was taken.
func expiredSnapshot(e fs.DirEntry, cutoff time.Time) (string, bool) {
	name := e.Name()
	fi, err := e.Info()
	if err != nil || !fi.ModTime().Before(cutoff) {
		return "", false
	}
	switch {
	case strings.HasPrefix(name, "."):
		return name, true // a temporary copy (".<id>-*") or manifest (".planmode-*")
	case !e.IsDir() && strings.HasSuffix(name, ".json"):
		id := strings.TrimSuffix(name, ".json")
		return id, validSnapshotID(id)
	}
	return "", false
}

// removeSnapshot removes the tree id from the store, then its manifest
// name, so a failure halfway leaves a manifest that a later prune
// retries. Snapshot folders always grant their owner write access (see
// copier.visit), so a read-only folder of the workspace does not stop the
// removal.
func removeSnapshot(store *os.Root, name, id string) error {
	if strings.HasPrefix(name, ".") {
		return store.RemoveAll(name)
	}
	if err := store.RemoveAll(id); err != nil {
		return fmt.Errorf("prune snapshot %s: %w", id, err)
	}
	if err := store.Remove(name); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("prune snapshot %s: %w", id, err)
	}
	return nil
}
