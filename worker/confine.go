package main

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/planmode/planmode/internal/config"
	"github.com/planmode/planmode/tools"
)

// maxLinks bounds the symlinks resolve follows, as the kernel does.
const maxLinks = 40

// checkWorkspace makes sure the tools have a folder to work in that
// confines them to something less than the whole machine, and that
// nothing the worker keeps from plans lies in it, where a plan's file
// tools could read or change it: the configuration file, every secret
// file, the full outputs' folder and the snapshots' (config.GuardedPaths).
// A folder the worker prunes may not hold the workspace either. Both sides
// are compared with their symlinks resolved.
func checkWorkspace(cfg config.Config) error {
	root := cfg.Workspace.Root
	fi, err := os.Stat(root)
	if err != nil {
		return fmt.Errorf("%s: %w", config.KeyWorkspaceRoot, err)
	}
	if !fi.IsDir() {
		return fmt.Errorf("%s %s is not a folder", config.KeyWorkspaceRoot, root)
	}
	realRoot, err := filepath.EvalSymlinks(root)
	if err != nil {
		return fmt.Errorf("%s: %w", config.KeyWorkspaceRoot, err)
	}
	if filepath.Dir(realRoot) == realRoot {
		return fmt.Errorf("%s %s is the file system's root, where the tools could reach every file the worker can: set %s (%s or --%s) to the folder plans work in",
			config.KeyWorkspaceRoot, root, config.KeyWorkspaceRoot, config.EnvName(config.KeyWorkspaceRoot), config.FlagWorkspace)
	}
	for _, g := range cfg.GuardedPaths() {
		real, err := resolve(g.Path)
		if err != nil {
			return fmt.Errorf("%s %s: %w", g.Key, g.Path, err)
		}
		switch {
		case tools.Within(realRoot, real):
			return fmt.Errorf("%s %s lies in %s %s, where plans could read it: %s, or set %s to the folder plans work in",
				g.Key, g.Path, config.KeyWorkspaceRoot, root, moveOut(g), config.KeyWorkspaceRoot)
		case g.Store && tools.Within(real, realRoot):
			return fmt.Errorf("%s %s lies in %s %s, whose folders the worker removes: set %s (%s) to a folder apart from the workspace",
				config.KeyWorkspaceRoot, root, g.Key, g.Path, g.Key, config.EnvName(g.Key))
		}
	}
	return nil
}

// moveOut says how to take g out of the workspace.
func moveOut(g config.GuardedPath) string {
	switch {
	case g.Key == config.GuardedConfigFile:
		return fmt.Sprintf("move it out of it and name it with --%s or %s", config.FlagConfig, config.ConfigEnv)
	case g.Store:
		return fmt.Sprintf("set %s (%s) to a folder outside it", g.Key, config.EnvName(g.Key))
	}
	return fmt.Sprintf("move the file out of it and point %s (%s) at its new place", g.Key, config.EnvName(g.Key))
}

// resolve returns path absolute with its symlinks resolved. For a path
// that does not exist yet, those of its deepest existing ancestor are, and
// a dangling symlink on the way is followed to where it points, which is
// where the path would be created.
func resolve(path string) (string, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return "", err
	}
	for range maxLinks {
		cur, rest := abs, ""
		for {
			real, err := filepath.EvalSymlinks(cur)
			if err == nil {
				return filepath.Join(real, rest), nil
			}
			if !errors.Is(err, fs.ErrNotExist) {
				return "", err
			}
			if fi, lerr := os.Lstat(cur); lerr == nil && fi.Mode()&fs.ModeSymlink != 0 {
				break // cur is a dangling link: follow it below
			}
			parent := filepath.Dir(cur)
			if parent == cur {
				return abs, nil
			}
			rest, cur = filepath.Join(filepath.Base(cur), rest), parent
		}
		target, err := os.Readlink(cur)
		if err != nil {
			return "", err
		}
		if !filepath.IsAbs(target) {
			target = filepath.Join(filepath.Dir(cur), target)
		}
		abs = filepath.Join(target, rest)
	}
	return "", fmt.Errorf("too many symlinks")
}
