package activities

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/planmode/planmode/tools"
)

// resolveWorkspace returns the absolute, symlink-free workspace a plan
// names. With a workspace root configured, an empty ws is the root, a
// relative one lies under it, and one outside it is refused. A missing
// workspace is refused when mustExist, else created (a restore may need
// to recreate it). Refusals are non-retryable ErrWorkspace errors.
func (a *Activities) resolveWorkspace(ws string, mustExist bool) (string, error) {
	root := a.workspaceRoot
	switch {
	case ws == "" && root == "":
		return "", fail(ErrWorkspace, nil, "no workspace: the plan names none and the worker has no workspace root")
	case ws == "":
		ws = root
	case !filepath.IsAbs(ws) && root != "":
		ws = filepath.Join(root, ws)
	}
	real, err := realPath(ws)
	if err != nil {
		return "", fail(ErrWorkspace, err, fmt.Sprintf("workspace %s: %v", ws, err))
	}
	if root != "" {
		realRoot, err := realPath(root)
		if err != nil {
			return "", fail(ErrWorkspace, err, fmt.Sprintf("workspace root %s: %v", root, err))
		}
		if !tools.Within(realRoot, real) {
			return "", fail(ErrWorkspace, nil, fmt.Sprintf("workspace %s is outside the workspace root %s", ws, realRoot))
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
		return "", fail(ErrWorkspace, err, fmt.Sprintf("workspace %s: %v", ws, err))
	}
	if !fi.IsDir() {
		return "", fail(ErrWorkspace, nil, fmt.Sprintf("workspace %s is not a directory", ws))
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
