package workspace

import (
	"context"
	"fmt"
	"os"
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
	root, err := os.OpenRoot(ws)
	if err != nil {
		return nil, 0, fmt.Errorf("changes in %s: %w", ws, err)
	}
	defer root.Close()
	var files, dirs []string
	if fi, err := root.Stat("."); err == nil && fi.ModTime().After(since) {
		dirs = append(dirs, ".")
	}
	err = walk(ctx, root, "", func(e *entry) error {
		if !e.info.ModTime().After(since) {
			return nil
		}
		if e.kind() == kindDir {
			dirs = append(dirs, e.rel)
		} else {
			files = append(files, e.rel)
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
