package workspace

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"
)

// Kinds of refusal, for errors.Is. Both are permanent: no retry moves a
// workspace back under the root, shrinks it or brings back a snapshot.
var (
	// ErrRejected is a workspace that is missing, not a directory,
	// outside the root or the root itself.
	ErrRejected = errors.New("workspace rejected")
	// ErrSnapshot is a snapshot that cannot be taken (too large, no plan
	// id, a store that overlaps the workspace) or restored (unknown id,
	// another workspace's snapshot).
	ErrSnapshot = errors.New("snapshot refused")
)

// Refusal is an error of one of the kinds above: Msg says what was
// refused and why, Err is the underlying cause, if any. Other errors of
// this package are faults of the worker (a disk error, cancellation),
// which a retry may fix.
type Refusal struct {
	Kind error
	Msg  string
	Err  error
}

// Error returns the message.
func (r *Refusal) Error() string { return r.Msg }

// Unwrap returns the kind and the cause, if any.
func (r *Refusal) Unwrap() []error {
	if r.Err == nil {
		return []error{r.Kind}
	}
	return []error{r.Kind, r.Err}
}

// refuse returns a Refusal.
func refuse(kind, cause error, format string, args ...any) error {
	return &Refusal{Kind: kind, Msg: fmt.Sprintf(format, args...), Err: cause}
}

// Root is where the plans' workspaces may lie and where their snapshots
// are kept. Its zero value accepts any workspace a plan names and keeps at
// most DefaultSnapshotLimit bytes per snapshot in the user's cache
// directory.
type Root struct {
	// Dir, when set, is the directory every workspace must lie in: a
	// relative workspace is taken relative to it. A workspace is a folder
	// inside Dir, never Dir itself, which holds every plan's. Without Dir
	// a plan may name any folder.
	Dir string
	// SnapshotDir is where snapshots are kept; it must not overlap a
	// workspace. Empty means planmode/snapshots in the user's cache
	// directory, or in the temporary directory when there is none.
	SnapshotDir string
	// SnapshotLimit is the largest workspace, in bytes, a snapshot copies;
	// zero means DefaultSnapshotLimit.
	SnapshotLimit int64
}

// Resolve returns the absolute, symlink-free workspace a plan names (see
// Root.Dir). A missing workspace is refused when mustExist, else created
// (a restore may need to recreate it). Refusals are ErrRejected: no
// workspace named, one outside Dir, or Dir itself.
func (r Root) Resolve(ws string, mustExist bool) (string, error) {
	root := r.Dir
	switch {
	case ws == "" && root == "":
		return "", refuse(ErrRejected, nil, "no workspace: the plan names none and the worker has no workspace root")
	case ws == "":
		return "", refuse(ErrRejected, nil, "no workspace: %s", notTheRoot)
	case !filepath.IsAbs(ws) && root != "":
		ws = filepath.Join(root, ws)
	}
	real, err := realPath(ws)
	if err != nil {
		return "", refuse(ErrRejected, err, "workspace %s: %v", ws, err)
	}
	if root != "" {
		realRoot, err := realPath(root)
		if err != nil {
			return "", refuse(ErrRejected, err, "workspace root %s: %v", root, err)
		}
		if real == realRoot {
			return "", refuse(ErrRejected, nil, "workspace %s is the workspace root: %s", ws, notTheRoot)
		}
		if !inside(filepath.ToSlash(realRoot), filepath.ToSlash(real)) {
			return "", refuse(ErrRejected, nil, "workspace %s is outside the workspace root %s", ws, realRoot)
		}
	}
	fi, err := os.Stat(real)
	if errors.Is(err, fs.ErrNotExist) && !mustExist {
		if err := os.MkdirAll(real, 0o755); err != nil {
			return "", fmt.Errorf("recreate workspace %s: %w", real, err)
		}
		return real, nil
	}
	if err != nil {
		return "", refuse(ErrRejected, err, "workspace %s: %v", ws, err)
	}
	if !fi.IsDir() {
		return "", refuse(ErrRejected, nil, "workspace %s is not a directory", ws)
	}
	return real, nil
}

// notTheRoot says why the workspace root is no plan's workspace: a
// snapshot of it would copy, and a restore rewrite, every plan's files.
const notTheRoot = "a plan's workspace must be a folder inside workspace.root, not the root that holds every plan's"

// Overlaps reports whether the folders a and b are the same or one lies
// inside the other. Both are absolute, or both relative to the same
// folder, slash-separated; they are cleaned first. Paths that cannot be
// compared without knowing that folder (one absolute and one relative, or
// a relative one that climbs out with "..") are taken to overlap, so that
// a caller keeping workspaces apart errs on the side of refusing.
func Overlaps(a, b string) bool {
	a, b = path.Clean(filepath.ToSlash(a)), path.Clean(filepath.ToSlash(b))
	if path.IsAbs(a) != path.IsAbs(b) || climbs(a) || climbs(b) {
		return true
	}
	return inside(a, b) || inside(b, a)
}

// inside reports whether the clean path p is dir or lies inside it.
func inside(dir, p string) bool {
	switch dir {
	case p:
		return true
	case "/":
		return path.IsAbs(p)
	case ".":
		return !path.IsAbs(p) && !climbs(p)
	}
	return strings.HasPrefix(p, dir+"/")
}

// climbs reports whether the clean relative path p leads above its base.
func climbs(p string) bool {
	return p == ".." || strings.HasPrefix(p, "../")
}

// realPath makes p absolute and resolves the symlinks of its deepest
// existing ancestor, keeping the missing rest as is.
func realPath(p string) (string, error) {
	abs, err := filepath.Abs(p)
	if err != nil {
		return "", err
	}
	var rest []string
	for cur := abs; ; cur = filepath.Dir(cur) {
		real, err := filepath.EvalSymlinks(cur)
		if err == nil {
			return filepath.Join(append([]string{real}, rest...)...), nil
		}
		if !errors.Is(err, fs.ErrNotExist) || cur == filepath.Dir(cur) {
			return "", err
		}
		if _, lerr := os.Lstat(cur); lerr == nil {
			return "", fmt.Errorf("%s is a symlink whose target does not exist", cur)
		}
		rest = append([]string{filepath.Base(cur)}, rest...)
	}
}
