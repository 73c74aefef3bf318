package workspace

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
)

// DefaultSnapshotLimit is the largest workspace a snapshot copies when
// Root.SnapshotLimit is zero.
const DefaultSnapshotLimit = 200 << 20

// beatEvery is how many files a snapshot or restore handles between
// heartbeats.
const beatEvery = 500

// Snapshot is what Root.Snapshot took.
type Snapshot struct {
	// ID names the snapshot for Root.Restore.
	ID string
	// Files counts the files and symlinks copied.
	Files int
	// Skipped lists what was left out and why, in walk order. A restore
	// leaves these paths as it finds them.
	Skipped []Skip
}

// Skip is a path a snapshot left out, and why.
type Skip struct {
	Path   string `json:"path"`
	Reason string `json:"reason"`
}

// String returns "path: reason".
func (s Skip) String() string { return s.Path + ": " + s.Reason }

// MaxSkipsListed bounds the skipped paths ListSkips lists: a snapshot's
// list lands in the plan's history.
const MaxSkipsListed = 20

// ListSkips lists skipped, at most MaxSkipsListed of them and then how
// many more.
func ListSkips(skipped []Skip) []string {
	var out []string
	for i, s := range skipped {
		if i == MaxSkipsListed {
			out = append(out, fmt.Sprintf("and %d more", len(skipped)-i))
			break
		}
		out = append(out, s.String())
	}
	return out
}

// Snapshot copies the workspace ws (see Resolve), .git included, into the
// snapshot directory under an id derived from planID and the workspace, so
// that taking it again replaces the same snapshot. Symlinks are copied as
// symlinks. It leaves out, and lists in Skipped, what the file tools
// refuse too: files with more than one hard link (another name may lie
// outside the workspace), symlinks leading outside, anything but regular
// files, folders and symlinks, and entries swapped while it ran. beat,
// when not nil, is called every few hundred files. A workspace over the
// snapshot limit, or an empty planID, is an ErrSnapshot refusal.
func (r Root) Snapshot(ctx context.Context, planID, ws string, beat func(...any)) (Snapshot, error) {
	if strings.TrimSpace(planID) == "" {
		return Snapshot{}, refuse(ErrSnapshot, nil, "snapshot: the plan id is empty")
	}
	ws, err := r.Resolve(ws, true)
	if err != nil {
		return Snapshot{}, err
	}
	store, err := r.openStore(ws)
	if err != nil {
		return Snapshot{}, err
	}
	defer store.Close()
	src, err := os.OpenRoot(ws)
	if err != nil {
		return Snapshot{}, fmt.Errorf("snapshot: %w", err)
	}
	defer src.Close()
	snap := Snapshot{ID: snapshotID(planID, ws)}
	m := snapshotManifest{PlanID: planID, Workspace: ws}
	if err := takeSnapshot(ctx, src, store, snap.ID, &m, r.limit(), beat); err != nil {
		return Snapshot{}, err
	}
	snap.Files, snap.Skipped = m.Files, m.Skipped
	return snap, nil
}

// Restore makes the workspace ws (see Resolve; recreated when it is gone)
// equal to snapshot id, leaving alone what the snapshot skipped: files
// modified or deleted since are put back (restored), files created since
// are removed (removed), both sorted. Running it again changes nothing, so
// retries are safe; one that fails because a folder was swapped while it
// ran is fixed by a retry. beat, when not nil, is called every few hundred
// files. An invalid or unknown id, a snapshot of another workspace or one
// holding a symlink that leads outside is an ErrSnapshot refusal.
func (r Root) Restore(ctx context.Context, id, ws string, beat func(...any)) (restored, removed []string,
	err error) {
	if !validSnapshotID(id) {
		return nil, nil, refuse(ErrSnapshot, nil, "restore: invalid snapshot id %q", id)
	}
	if ws, err = r.Resolve(ws, false); err != nil {
		return nil, nil, err
	}
	store, err := r.openStore(ws)
	if err != nil {
		return nil, nil, err
	}
	defer store.Close()
	tree, m, err := openSnapshot(store, id, ws)
	if err != nil {
		return nil, nil, err
	}
	defer tree.Close()
	dst, err := os.OpenRoot(ws)
	if err != nil {
		return nil, nil, fmt.Errorf("restore: %w", err)
	}
	defer dst.Close()
	return restoreTree(ctx, tree, dst, m, beat)
}

// openStore opens the snapshot directory, created, after checking it does
// not overlap the workspace.
func (r Root) openStore(ws string) (*os.Root, error) {
	dir := r.snapshotDir()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("snapshot directory: %w", err)
	}
	real, err := filepath.EvalSymlinks(dir)
	if err != nil {
		return nil, fmt.Errorf("snapshot directory: %w", err)
	}
	if Overlaps(ws, real) {
		return nil, refuse(ErrSnapshot, nil, "the snapshot directory %s overlaps the workspace %s", real, ws)
	}
	store, err := os.OpenRoot(real)
	if err != nil {
		return nil, fmt.Errorf("snapshot directory: %w", err)
	}
	return store, nil
}

// snapshotDir returns the directory snapshots are kept in: SnapshotDir,
// or planmode/snapshots in the user's cache (or temporary) directory.
func (r Root) snapshotDir() string {
	if r.SnapshotDir != "" {
		return r.SnapshotDir
	}
	base, err := os.UserCacheDir()
	if err != nil {
		base = os.TempDir()
	}
	return filepath.Join(base, "planmode", "snapshots")
}

// limit returns the snapshot size limit.
func (r Root) limit() int64 {
	if r.SnapshotLimit > 0 {
		return r.SnapshotLimit
	}
	return DefaultSnapshotLimit
}

// snapshotManifest is stored beside a snapshot tree (<id>.json) so a
// restore can refuse to put one workspace's files into another, and
// leaves alone what the snapshot skipped.
type snapshotManifest struct {
	PlanID    string `json:"planId"`
	Workspace string `json:"workspace"`
	Files     int    `json:"files"`
	Bytes     int64  `json:"bytes"`
	Skipped   []Skip `json:"skipped,omitempty"`
}

// unsafeIDChars are replaced in the plan id part of a snapshot id.
var unsafeIDChars = regexp.MustCompile(`[^A-Za-z0-9._-]+`)

// snapshotIDPattern is what a snapshot id looks like.
var snapshotIDPattern = regexp.MustCompile(`^[A-Za-z0-9_-][A-Za-z0-9._-]*$`)

// snapshotID derives a stable id from the plan id and the workspace:
// "<plan id, made file-safe>-<8 hex digits of their hash>".
func snapshotID(planID, ws string) string {
	sum := sha256.Sum256([]byte(planID + "\x00" + ws))
	safe := unsafeIDChars.ReplaceAllString(planID, "_")
	if len(safe) > 64 {
		safe = safe[:64]
	}
	return safe + "-" + hex.EncodeToString(sum[:4])
}

// validSnapshotID reports whether id is a plain name inside the snapshot
// directory.
func validSnapshotID(id string) bool {
	return snapshotIDPattern.MatchString(id) && id != "." && id != ".."
}

// writeManifest stores m as snapshot id's manifest; its modification time
// is when the snapshot was taken (see PruneSnapshots).
func writeManifest(store *os.Root, id string, m *snapshotManifest) error {
	data, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return err
	}
	return writeAtomic(store, id+".json", bytes.NewReader(data), 0o644)
}

// openSnapshot returns the tree of snapshot id and its manifest, after
// checking it was taken of ws.
func openSnapshot(store *os.Root, id, ws string) (*os.Root, *snapshotManifest, error) {
	data, err := store.ReadFile(id + ".json")
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil, refuse(ErrSnapshot, err, "snapshot %s not found in %s", id, store.Name())
	}
	if err != nil {
		return nil, nil, fmt.Errorf("open snapshot %s: %w", id, err)
	}
	var m snapshotManifest
	if err := json.Unmarshal(data, &m); err != nil {
		return nil, nil, refuse(ErrSnapshot, err, "snapshot %s: unreadable manifest", id)
	}
	if m.Workspace != ws {
		return nil, nil, refuse(ErrSnapshot, nil, "snapshot %s was taken of %s, not of %s", id, m.Workspace, ws)
	}
	tree, err := store.OpenRoot(id)
	if err != nil {
		return nil, nil, refuse(ErrSnapshot, err, "snapshot %s: its files are missing from %s", id, store.Name())
	}
	return tree, &m, nil
}
