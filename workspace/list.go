package workspace

import (
	"errors"
	"io/fs"
	"os"
	"strings"

	"github.com/planmode/planmode/plan"
)

// maxListedFiles bounds the workspace files a planning prompt lists.
const maxListedFiles = 50

// errListFull stops the walk once the list is full.
var errListFull = errors.New("list full")

// ListFiles returns the files a planning prompt lists: the task's
// CurrentFiles when given, else the first files of a walk of its workspace
// root in lexical order, skipping hidden entries and dependency folders.
// more reports that the list was cut at maxListedFiles. The listing is
// best effort: an unreadable workspace lists nothing.
func ListFiles(tc plan.TaskContext) (files []string, more bool) {
	if len(tc.CurrentFiles) > 0 {
		if len(tc.CurrentFiles) > maxListedFiles {
			return tc.CurrentFiles[:maxListedFiles], true
		}
		return tc.CurrentFiles, false
	}
	if tc.WorkspaceRoot == "" {
		return nil, false
	}
	// Through a Root: a symlink swapped in for a folder leads nowhere out.
	root, err := os.OpenRoot(tc.WorkspaceRoot)
	if err != nil {
		return nil, false
	}
	defer root.Close()
	err = fs.WalkDir(root.FS(), ".", func(path string, d fs.DirEntry, err error) error {
		if err != nil || path == "." {
			return nil // best effort: skip what cannot be read
		}
		if skipEntry(d.Name()) {
			if d.IsDir() {
				return fs.SkipDir
			}
			return nil
		}
		if d.IsDir() {
			return nil
		}
		if len(files) == maxListedFiles {
			more = true
			return errListFull
		}
		files = append(files, path)
		return nil
	})
	if err != nil && !errors.Is(err, errListFull) {
		return nil, false
	}
	return files, more
}

// skipEntry reports whether a file or folder is left out of listings:
// hidden ones (.git, .cache) and dependency folders.
func skipEntry(name string) bool {
	if strings.HasPrefix(name, ".") {
		return true
	}
	switch name {
	case "node_modules", "vendor", "__pycache__", "target", "dist":
		return true
	}
	return false
}
