package tools

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// Bounds of list_files, search_files and search_code.
const (
	defaultListMax = 500
	hardListMax    = 5000
)

// skipDir reports whether a walk skips a directory: version control data.
func skipDir(name string) bool { return name == ".git" }

// boundMax returns the effective result cap.
func boundMax(requested, def, hard int) (int, error) {
	switch {
	case requested < 0:
		return 0, Failf("invalid argument \"max\": must not be negative")
	case requested == 0:
		return def, nil
	default:
		return min(requested, hard), nil
	}
}

type listFilesArgs struct {
	Path      string `json:"path,omitempty"`
	Recursive bool   `json:"recursive,omitempty"`
	Max       int    `json:"max,omitempty"`
}

// listFilesTool lists a directory, optionally recursively; .git is skipped.
func listFilesTool(cfg Config) Tool {
	return Tool{
		Spec: Spec{
			Name: "list_files",
			Description: fmt.Sprintf("List a workspace directory (default the root); directories end in /, .git "+
				"is skipped; at most max entries (default %d, up to %d).", defaultListMax, hardListMax),
			Parameters: schema(map[string]string{
				"path":      `{"type":"string","description":"relative directory"}`,
				"recursive": `{"type":"boolean"}`,
				"max":       `{"type":"integer","minimum":1}`,
			}),
			ReadOnly: true,
		},
		Run: func(ctx context.Context, env Env, raw json.RawMessage) (Result, error) {
			var a listFilesArgs
			if err := DecodeArgs(raw, &a); err != nil {
				return Result{}, err
			}
			max, err := boundMax(a.Max, defaultListMax, hardListMax)
			if err != nil {
				return Result{}, err
			}
			r, err := env.Root.open()
			if err != nil {
				return Result{}, err
			}
			defer r.Close()
			dir, err := env.Root.resolve(r, a.Path, true)
			if err != nil {
				return Result{}, err
			}
			entries, more, err := listDir(ctx, r, dir, a.Recursive, max)
			if err != nil {
				return Result{}, err
			}
			return listing(entries, more, max, cfg.MaxOutputBytes), nil
		},
	}
}

// errEnough stops a walk once the cap is reached.
var errEnough = errors.New("enough entries")

// listDir walks the directory dir of r and returns entries relative to
// the root.
func listDir(ctx context.Context, r *os.Root, dir string, recursive bool, max int) ([]string, bool, error) {
	entries, err := readDir(r, dir)
	if err != nil {
		return nil, false, fileErr("list", filepath.ToSlash(dir), err)
	}
	var out []string
	more := false
	err = walkEntries(ctx, r, dir, entries, func(name string, d fs.DirEntry) error {
		if d.IsDir() && skipDir(d.Name()) {
			return fs.SkipDir
		}
		if len(out) == max {
			more = true
			return errEnough
		}
		name = filepath.ToSlash(name)
		if d.IsDir() {
			name += "/"
		}
		out = append(out, name)
		if d.IsDir() && !recursive {
			return fs.SkipDir
		}
		return nil
	})
	if err != nil && !errors.Is(err, errEnough) {
		return nil, false, err
	}
	return out, more, nil
}

// errNotDir is why a name that is not a directory cannot be listed.
var errNotDir = errors.New("not a directory")

// readDir returns the entries of the directory name of r sorted by name.
// The directory is opened through r, so a symlink swapped in for it is
// followed only inside the workspace, and without blocking, so a named
// pipe swapped in is refused rather than waited on.
func readDir(r *os.Root, name string) ([]fs.DirEntry, error) {
	afterResolve(name)
	f, err := r.OpenFile(name, os.O_RDONLY|openNonblock, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if fi, err := f.Stat(); err != nil {
		return nil, err
	} else if !fi.IsDir() {
		return nil, errNotDir
	}
	entries, err := f.ReadDir(-1)
	slices.SortFunc(entries, func(a, b fs.DirEntry) int { return strings.Compare(a.Name(), b.Name()) })
	return entries, err
}

// walkEntries calls fn with the name of each of the entries of the
// directory dir and goes down into subdirectories, depth first, unless fn
// returns fs.SkipDir; any other error from fn stops the walk. It never
// goes down a symlink, and subdirectories that cannot be read are left out.
func walkEntries(ctx context.Context, r *os.Root, dir string, entries []fs.DirEntry,
	fn func(name string, d fs.DirEntry) error) error {
	for _, d := range entries {
		if err := ctx.Err(); err != nil {
			return err
		}
		name := filepath.Join(dir, d.Name())
		err := fn(name, d)
		if errors.Is(err, fs.SkipDir) || (err == nil && !d.IsDir()) {
			continue
		}
		if err != nil {
			return err
		}
		sub, err := readDir(r, name)
		if err != nil {
			continue
		}
		if err := walkEntries(ctx, r, name, sub, fn); err != nil {
			return err
		}
	}
	return nil
}

// listing renders entries as one per line.
func listing(entries []string, more bool, max, maxOut int) Result {
	out := strings.Join(entries, "\n")
	if len(entries) == 0 {
		out = "(no entries)"
	}
	if more {
		out += fmt.Sprintf("\n[stopped at %d entries; narrow the path or raise max]", max)
	}
	out, cut := Truncate(out, maxOut)
	return Result{Output: out, Truncated: more || cut}
}

type searchFilesArgs struct {
	Pattern string `json:"pattern"`
	Max     int    `json:"max,omitempty"`
}

// searchFilesTool finds files whose path matches a glob.
func searchFilesTool(cfg Config) Tool {
	return Tool{
		Spec: Spec{
			Name: "search_files",
			Description: "Find workspace files by path glob: * and ? within a name, ** across directories, " +
				"{a,b} for either; without / it matches names at any depth.",
			Parameters: schema(map[string]string{
				"pattern": `{"type":"string","description":"e.g. cmd/**/*.go, *_test.go"}`,
				"max":     `{"type":"integer","minimum":1}`,
			}, "pattern"),
			ReadOnly: true,
		},
		Run: func(ctx context.Context, env Env, raw json.RawMessage) (Result, error) {
			var a searchFilesArgs
			if err := DecodeArgs(raw, &a); err != nil {
				return Result{}, err
			}
			if err := required("pattern", a.Pattern); err != nil {
				return Result{}, err
			}
			g, err := compileGlob(a.Pattern)
			if err != nil {
				return Result{}, err
			}
			max, err := boundMax(a.Max, defaultListMax, hardListMax)
			if err != nil {
				return Result{}, err
			}
			r, err := env.Root.open()
			if err != nil {
				return Result{}, err
			}
			defer r.Close()
			var found []string
			more, err := walkFiles(ctx, env, r, g, func(rel, _ string) bool {
				if len(found) == max {
					return false
				}
				found = append(found, rel)
				return true
			})
			if err != nil {
				return Result{}, err
			}
			return listing(found, more, max, cfg.MaxOutputBytes), nil
		},
	}
}

// walkFiles calls visit with the slash path and the name in r of every
// regular file matching g (all files when g has no segments), skipping
// .git, until visit returns false; it reports whether it stopped early.
func walkFiles(ctx context.Context, env Env, r *os.Root, g glob, visit func(rel, name string) bool) (bool, error) {
	entries, err := readDir(r, ".")
	if err != nil {
		return false, fileErr("walk", ".", err)
	}
	stopped := false
	n := 0
	err = walkEntries(ctx, r, ".", entries, func(name string, d fs.DirEntry) error {
		if d.IsDir() && skipDir(d.Name()) {
			return fs.SkipDir
		}
		if !d.Type().IsRegular() {
			return nil
		}
		if n++; n%1000 == 0 {
			env.Beat("walk", n)
		}
		rel := filepath.ToSlash(name)
		if !g.match(rel) {
			return nil
		}
		if !visit(rel, name) {
			stopped = true
			return errEnough
		}
		return nil
	})
	if err != nil && !errors.Is(err, errEnough) {
		return false, err
	}
	return stopped, nil
}
