package workspace

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/planmode/planmode/tools"
)

// Kinds of refusal, for errors.Is. Both are permanent: no retry moves a
// workspace back under the root, shrinks it or brings back a snapshot.
var (
	// ErrRejected is a workspace that is missing, not a directory or
	// outside the root.
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
	// relative workspace is taken relative to it, an empty one is Dir
	// itself. Without it a plan must name its workspace.
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
// (a restore may need to recreate it). Refusals are ErrRejected.
func (r Root) Resolve(ws string, mustExist bool) (string, error) {
	root := r.Dir
	switch {
	case ws == "" && root == "":
		return "", refuse(ErrRejected, nil, "no workspace: the plan names none and the worker has no workspace root")
	case ws == "":
		ws = root
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
		if !tools.Within(realRoot, real) {
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
