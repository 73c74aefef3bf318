package workspace

import (
	"context"
	"fmt"
	"io/fs"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"time"
)

// ChangedSince lists what in the workspace ws (see Resolve) was modified
// after since, by modification time: files and symlinks by their path,
// and folders whose entries were added, removed or renamed as "dir/"
// (only when no listed path lies under them, since a new file changes its
// folder too; "./" is the workspace itself). The list is sorted; at most
// max paths are returned (max <= 0 means all) and more counts the rest.
// A deleted file shows only through its folder.
func (r Root) ChangedSince(ctx context.Context, ws string, since time.Time, max int) (paths []string, more int, err error) {
	if ws, err = r.Resolve(ws, false); err != nil {
		return nil, 0, err
	}
	var files, dirs []string
	err = filepath.WalkDir(ws, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		fi, err := d.Info()
		if err != nil {
			return err
		}
		if !fi.ModTime().After(since) {
			return nil
		}
		rel, err := filepath.Rel(ws, p)
		if err != nil {
			return err
		}
		if d.IsDir() {
			dirs = append(dirs, filepath.ToSlash(rel))
		} else {
			files = append(files, filepath.ToSlash(rel))
		}
		return nil
	})
	if err != nil {
		return nil, 0, fmt.Errorf("changes in %s since %s: %w", ws, since.Format(time.RFC3339), err)
	}
	paths = append(files, unexplainedDirs(dirs, files)...)
	sort.Strings(paths)
	if max > 0 && len(paths) > max {
		return paths[:max], len(paths) - max, nil
	}
	return paths, 0, nil
}

// unexplainedDirs returns the dirs, as "dir/" ("./" for the workspace
// itself), under which no file of files and no other changed dir lies:
// their change is a removal or a rename nothing else shows.
func unexplainedDirs(dirs, files []string) []string {
	var out []string
	for _, d := range dirs {
		prefix := d + "/"
		if d == "." {
			prefix = ""
		}
		under := func(p string) bool { return p != d && strings.HasPrefix(p, prefix) }
		if slices.ContainsFunc(files, under) || slices.ContainsFunc(dirs, under) {
			continue
		}
		if d == "." {
			out = append(out, "./")
			continue
		}
		out = append(out, prefix)
	}
	return out
}
