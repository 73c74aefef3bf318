// Package filesconfig opens the store of the plans' files from the
// configuration. The worker and the CLI (gc, output) share it, so that
// both read workspace.store the same way and the CLI needs no part of the
// worker to do so.
package filesconfig

import (
	"fmt"

	"github.com/planmode/planmode/blobstore"
	"github.com/planmode/planmode/internal/config"
	"github.com/planmode/planmode/workspace"
)

// Open opens the store of the plans' files that workspace.store names,
// with a worker-private state folder beside the user's cache (stat
// caches, steps' copies) and, for a remote store, a local cache of the
// blobs read. No store configured is nil, nil.
func Open(w config.Workspace) (*workspace.Files, error) {
	if w.Store == "" {
		return nil, nil
	}
	store, err := blobstore.Open(w.Store, blobstore.Options{AccessKeyFile: w.StoreAccessKeyFile,
		SecretKeyFile: w.StoreSecretKeyFile, CacheDir: config.BlobCacheDir()})
	if err != nil {
		return nil, fmt.Errorf("%s: %w", config.KeyStore, err)
	}
	return &workspace.Files{Store: store, StateDir: config.StateDir(), MaxFiles: w.MaxFiles, MaxBytes: w.SnapshotLimit}, nil
}
