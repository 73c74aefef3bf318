package outputs

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/planmode/planmode/blobstore"
)

// SharedPrefix starts the key of every kept output put into a blob store:
// an OutputRef that starts with it names the output there, readable from
// any host (planmode output); any other OutputRef is a path on the worker
// that kept it.
const SharedPrefix = "outputs/"

// Share puts the kept output at path, a file of s, into store and
// returns its key there.
func (s *Store) Share(ctx context.Context, store blobstore.Store, path string) (string, error) {
	rel, err := filepath.Rel(s.dir, path)
	if err != nil || rel == ".." || strings.HasPrefix(rel, "../") {
		return "", fmt.Errorf("share output %s: not a file of the store %s", path, s.dir)
	}
	key := SharedPrefix + filepath.ToSlash(rel)
	f, err := os.Open(path)
	if err != nil {
		return "", fmt.Errorf("share output: %w", err)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return "", fmt.Errorf("share output: %w", err)
	}
	if err := store.Put(ctx, key, f, fi.Size()); err != nil {
		return "", fmt.Errorf("share output %s: %w", key, err)
	}
	return key, nil
}

// PruneShared removes the outputs put into store before now - retention,
// and returns how many it removed.
func PruneShared(ctx context.Context, store blobstore.Store, now time.Time, retention time.Duration) (int, error) {
	cutoff := now.Add(-retention)
	var old []string
	err := store.List(ctx, SharedPrefix, func(i blobstore.Info) error {
		if i.ModTime.Before(cutoff) {
			old = append(old, i.Key)
		}
		return nil
	})
	var errs []error
	for _, k := range old {
		if derr := store.Delete(ctx, k); derr != nil {
			errs = append(errs, derr)
		}
	}
	return len(old) - len(errs), errors.Join(append(errs, err)...)
}
