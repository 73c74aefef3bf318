package activities

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

	"github.com/planmode/planmode/tools"
)

// beatEvery is how many files a snapshot or restore handles between
// heartbeats.
const beatEvery = 500

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
		return 0, fail(ErrSnapshot, nil, fmt.Sprintf("workspace %s holds %d MiB, over the %d MiB snapshot limit",
			ws, size>>20, limit>>20))
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
		return "", fail(ErrSnapshot, err, fmt.Sprintf("snapshot %s not found in %s", id, dir))
	}
	if err != nil {
		return "", fmt.Errorf("open snapshot %s: %w", id, err)
	}
	var m snapshotManifest
	if err := json.Unmarshal(data, &m); err != nil {
		return "", fail(ErrSnapshot, err, fmt.Sprintf("snapshot %s: unreadable manifest", id))
	}
	if m.Workspace != ws {
		return "", fail(ErrSnapshot, nil, fmt.Sprintf("snapshot %s was taken of %s, not of %s", id, m.Workspace, ws))
	}
	tree := filepath.Join(dir, id)
	if fi, err := os.Stat(tree); err != nil || !fi.IsDir() {
		return "", fail(ErrSnapshot, err, fmt.Sprintf("snapshot %s: its files are missing from %s", id, dir))
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
