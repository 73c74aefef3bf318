package devserver

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// CopyDemoWorkspace copies the repository's demo/workspace into dst, every
// file writable, so that plans change the copy and never the sample.
func CopyDemoWorkspace(dst string) error {
	root, err := RepoRoot()
	if err != nil {
		return err
	}
	src := filepath.Join(root, "demo", "workspace")
	if err := os.CopyFS(dst, os.DirFS(src)); err != nil {
		return fmt.Errorf("copy %s: %w", src, err)
	}
	return filepath.WalkDir(dst, func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			err = os.Chmod(p, 0o644)
		}
		return err
	})
}
