package tools

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
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
			dir, err := env.Root.Resolve(a.Path)
			if err != nil {
				return Result{}, err
			}
			entries, more, err := listDir(ctx, env, dir, a.Recursive, max)
			if err != nil {
				return Result{}, err
			}
			return listing(entries, more, max, cfg.MaxOutputBytes), nil
		},
	}
}

// errEnough stops a walk once the cap is reached.
var errEnough = errors.New("enough entries")

// listDir walks dir and returns entries relative to the root.
func listDir(ctx context.Context, env Env, dir string, recursive bool, max int) ([]string, bool, error) {
	fi, err := os.Stat(dir)
	if err != nil {
		return nil, false, Failf("list %s: %w", env.Root.Rel(dir), cleanPathErr(err))
	}
	if !fi.IsDir() {
		return nil, false, Failf("list %s: not a directory", env.Root.Rel(dir))
	}
	var out []string
	more := false
	err = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil // unreadable entries are left out
		}
		if p == dir {
			return nil
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		if d.IsDir() && skipDir(d.Name()) {
			return filepath.SkipDir
		}
		if len(out) == max {
			more = true
			return errEnough
		}
		name := env.Root.Rel(p)
		if d.IsDir() {
			name += "/"
		}
		out = append(out, name)
		if d.IsDir() && !recursive {
			return filepath.SkipDir
		}
		return nil
	})
	if err != nil && !errors.Is(err, errEnough) {
		return nil, false, err
	}
	return out, more, nil
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
			var found []string
			more, err := walkFiles(ctx, env, g, func(rel, _ string) bool {
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

// walkFiles calls visit with the relative and absolute path of every
// regular file matching g (all files when g has no segments), skipping .git,
// until visit returns false; it reports whether it stopped early.
func walkFiles(ctx context.Context, env Env, g glob, visit func(rel, abs string) bool) (bool, error) {
	root := env.Root.Root()
	stopped := false
	n := 0
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		if d.IsDir() {
			if p != root && skipDir(d.Name()) {
				return filepath.SkipDir
			}
			return nil
		}
		if !d.Type().IsRegular() {
			return nil
		}
		if n++; n%1000 == 0 {
			env.Beat("walk", n)
		}
		rel := env.Root.Rel(p)
		if !g.match(rel) {
			return nil
		}
		if !visit(rel, p) {
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
