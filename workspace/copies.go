package workspace

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"time"
)

// SweepCopies removes the private copies of steps (CopyDir) not touched
// for longer than age: a copy's step merged, or ran on another worker, or
// its worker stopped before it ended. It returns how many it removed.
func (f *Files) SweepCopies(now time.Time, age time.Duration) (int, error) {
	root := filepath.Join(f.StateDir, copiesDir)
	owners, err := os.ReadDir(root)
	if errors.Is(err, fs.ErrNotExist) {
		return 0, nil
	}
	if err != nil {
		return 0, err
	}
	removed := 0
	var errs []error
	for _, o := range owners {
		steps, err := os.ReadDir(filepath.Join(root, o.Name()))
		if err != nil {
			errs = append(errs, err)
			continue
		}
		for _, s := range steps {
			info, err := s.Info()
			if err != nil || now.Sub(info.ModTime()) <= age {
				continue
			}
			// RemoveAll does not follow symlinks: a link a step left in its
			// copy is removed, not what it points to.
			if err := os.RemoveAll(filepath.Join(root, o.Name(), s.Name())); err != nil {
				errs = append(errs, err)
				continue
			}
			removed++
		}
	}
	return removed, errors.Join(errs...)
}
