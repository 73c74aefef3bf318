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

	"github.com/planmode/planmode/tools"
)

// DefaultSnapshotLimit is the largest workspace a snapshot copies when
// Root.SnapshotLimit is zero.
const DefaultSnapshotLimit = 200 << 20

// beatEvery is how many files a snapshot or restore handles between
// heartbeats.
const beatEvery = 500

// Snapshot copies the workspace ws (see Resolve), .git included, into the
// snapshot directory under an id derived from planID and the workspace, so
// that taking it again replaces the same snapshot. It returns the id and
// the number of files and symlinks copied. beat, when not nil, is called
// every few hundred files. A workspace over the snapshot limit, or an
// empty planID, is an ErrSnapshot refusal.
func (r Root) Snapshot(ctx context.Context, planID, ws string, beat func(...any)) (id string, files int,
	err error) {
	if strings.TrimSpace(planID) == "" {
		return "", 0, refuse(ErrSnapshot, nil, "snapshot: the plan id is empty")
	}
	if ws, err = r.Resolve(ws, true); err != nil {
		return "", 0, err
	}
	dir, err := r.store(ws)
	if err != nil {
		return "", 0, err
	}
	id = snapshotID(planID, ws)
	files, err = takeSnapshot(ctx, ws, dir, id, planID, r.limit(), beat)
	if err != nil {
		return "", 0, err
	}
	return id, files, nil
}

// Restore makes the workspace ws (see Resolve; recreated when it is gone)
// equal to snapshot id: files modified or deleted since are put back
// (restored), files created since are removed (removed), both sorted.
// Running it again changes nothing, so retries are safe. beat, when not
// nil, is called every few hundred files. An invalid or unknown id, or a
// snapshot of another workspace, is an ErrSnapshot refusal.
func (r Root) Restore(ctx context.Context, id, ws string, beat func(...any)) (restored, removed []string,
	err error) {
	if !validSnapshotID(id) {
		return nil, nil, refuse(ErrSnapshot, nil, "restore: invalid snapshot id %q", id)
	}
	if ws, err = r.Resolve(ws, false); err != nil {
		return nil, nil, err
	}
	dir, err := r.store(ws)
	if err != nil {
		return nil, nil, err
	}
	snap, err := openSnapshot(dir, id, ws)
	if err != nil {
		return nil, nil, err
	}
	return restoreTree(ctx, snap, ws, beat)
}

// store returns the snapshot directory, created, after checking it does
// not overlap the workspace.
func (r Root) store(ws string) (string, error) {
	dir := r.snapshotDir()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", fmt.Errorf("snapshot directory: %w", err)
	}
	real, err := filepath.EvalSymlinks(dir)
	if err != nil {
		return "", fmt.Errorf("snapshot directory: %w", err)
	}
	if tools.Within(ws, real) || tools.Within(real, ws) {
		return "", refuse(ErrSnapshot, nil, "the snapshot directory %s overlaps the workspace %s", real, ws)
	}
	return real, nil
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
// restore can refuse to put one workspace's files into another.
type snapshotManifest struct {
	PlanID    string `json:"planId"`
	Workspace string `json:"workspace"`
	Files     int    `json:"files"`
	Bytes     int64  `json:"bytes"`
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

// takeSnapshot copies ws into dir/id through a temporary directory,
// replacing an earlier copy, and writes the manifest. It returns the
// number of files and symlinks copied.
func takeSnapshot(ctx context.Context, ws, dir, id, planID string, limit int64, beat func(...any)) (int, error) {
	files, size, err := measure(ctx, ws)
	if err != nil {
		return 0, err
	}
	if size > limit {
		return 0, refuse(ErrSnapshot, nil, "workspace %s holds %d MiB, over the %d MiB snapshot limit",
			ws, size>>20, limit>>20)
	}
	tmp, err := os.MkdirTemp(dir, "."+id+"-*")
	if err != nil {
		return 0, fmt.Errorf("snapshot %s: %w", id, err)
	}
	defer os.RemoveAll(tmp) // gone after the rename; cleans up a failure
	if err := copyTree(ctx, ws, tmp, beat); err != nil {
		return 0, fmt.Errorf("snapshot %s: %w", id, err)
	}
	final := filepath.Join(dir, id)
	if err := os.RemoveAll(final); err != nil {
		return 0, fmt.Errorf("snapshot %s: replace the earlier copy: %w", id, err)
	}
	if err := os.Rename(tmp, final); err != nil {
		return 0, fmt.Errorf("snapshot %s: %w", id, err)
	}
	m := snapshotManifest{PlanID: planID, Workspace: ws, Files: files, Bytes: size}
	data, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return 0, fmt.Errorf("snapshot %s: manifest: %w", id, err)
	}
	if err := tools.WriteAtomic(filepath.Join(dir, id+".json"), bytes.NewReader(data), 0o644); err != nil {
		return 0, fmt.Errorf("snapshot %s: manifest: %w", id, err)
	}
	return files, nil
}

// openSnapshot returns the tree of snapshot id after checking it was taken
// of ws.
func openSnapshot(dir, id, ws string) (string, error) {
	data, err := os.ReadFile(filepath.Join(dir, id+".json"))
	if errors.Is(err, fs.ErrNotExist) {
		return "", refuse(ErrSnapshot, err, "snapshot %s not found in %s", id, dir)
	}
	if err != nil {
		return "", fmt.Errorf("open snapshot %s: %w", id, err)
	}
	var m snapshotManifest
	if err := json.Unmarshal(data, &m); err != nil {
		return "", refuse(ErrSnapshot, err, "snapshot %s: unreadable manifest", id)
	}
	if m.Workspace != ws {
		return "", refuse(ErrSnapshot, nil, "snapshot %s was taken of %s, not of %s", id, m.Workspace, ws)
	}
	tree := filepath.Join(dir, id)
	if fi, err := os.Stat(tree); err != nil || !fi.IsDir() {
		return "", refuse(ErrSnapshot, err, "snapshot %s: its files are missing from %s", id, dir)
	}
	return tree, nil
}

// measure counts the files and symlinks under root and their bytes.
func measure(ctx context.Context, root string) (int, int64, error) {
	var files int
	var size int64
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		if d.Type().IsRegular() {
			fi, err := d.Info()
			if err != nil {
				return err
			}
			size += fi.Size()
			files++
		} else if d.Type()&fs.ModeSymlink != 0 {
			files++
		}
		return nil
	})
	if err != nil {
		return 0, 0, fmt.Errorf("measure workspace %s: %w", root, err)
	}
	return files, size, nil
}

// copyTree copies src into the existing directory dst: directories, regular
// files with their permissions and symlinks as symlinks (never followed).
// Sockets, devices and pipes are left out.
func copyTree(ctx context.Context, src, dst string, beat func(...any)) error {
	n := 0
	return filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		rel, err := filepath.Rel(src, p)
		if err != nil {
			return err
		}
		target := filepath.Join(dst, rel)
		if n++; n%beatEvery == 0 && beat != nil {
			beat("snapshot", n)
		}
		switch {
		case d.IsDir():
			return mkdirLike(p, target)
		case d.Type()&fs.ModeSymlink != 0:
			return copySymlink(p, target)
		case d.Type().IsRegular():
			return copyFile(p, target)
		}
		return nil
	})
}

// mkdirLike creates dir with src's permissions (owner access kept so the
// tree can be filled and removed).
func mkdirLike(src, dir string) error {
	fi, err := os.Stat(src)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	return os.Chmod(dir, fi.Mode().Perm()|0o700)
}

// copySymlink recreates the symlink src at dst.
func copySymlink(src, dst string) error {
	target, err := os.Readlink(src)
	if err != nil {
		return err
	}
	return os.Symlink(target, dst)
}

// copyFile copies a regular file with its permissions through a temporary
// file and a rename, so an interrupted copy never leaves half a file.
func copyFile(src, dst string) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	fi, err := in.Stat()
	if err != nil {
		return err
	}
	return tools.WriteAtomic(dst, in, fi.Mode().Perm())
}
