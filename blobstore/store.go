// Package blobstore keeps immutable blobs under keys: the content of a
// plan's workspace (files by their hash, manifests) and its kept outputs,
// where any worker can reach them. A store is a local folder (the
// default, and a shared mount for several hosts) or an S3-compatible
// bucket (see Open).
package blobstore

import (
	"context"
	"errors"
	"fmt"
	"io"
	"regexp"
	"strings"
	"time"
)

// Store keeps blobs under keys. Blobs are written once: putting a key
// again replaces it whole, and a reader never sees half a blob.
// Implementations are safe for concurrent use.
type Store interface {
	// Put stores the size bytes r yields under key.
	Put(ctx context.Context, key string, r io.Reader, size int64) error
	// Get opens the blob under key; a missing one is ErrNotFound.
	Get(ctx context.Context, key string) (io.ReadCloser, error)
	// Stat describes the blob under key; a missing one is ErrNotFound.
	Stat(ctx context.Context, key string) (Info, error)
	// List calls fn for every blob whose key starts with prefix, in no
	// particular order; an error from fn stops it and is returned.
	List(ctx context.Context, prefix string, fn func(Info) error) error
	// Delete removes the blob under key; a missing one is no error.
	Delete(ctx context.Context, key string) error
}

// Info describes a stored blob.
type Info struct {
	Key     string
	Size    int64
	ModTime time.Time
}

// ErrNotFound is what Get and Stat return (wrapped) for a missing blob.
var ErrNotFound = errors.New("blob not found")

// ErrUnavailable marks (wrapped) a failure of the store itself — down,
// unreachable, timing out — as opposed to a refusal: the caller waits and
// tries again.
var ErrUnavailable = errors.New("blob store unavailable")

// MaxKeyBytes bounds a key.
const MaxKeyBytes = 512

// keyPattern is what a key looks like: slash-separated parts of
// [A-Za-z0-9._-], none of them "." or "..", no leading or trailing slash.
var keyPattern = regexp.MustCompile(`^[A-Za-z0-9._-]+(/[A-Za-z0-9._-]+)*$`)

// ValidKey reports why key is no key a store takes, or nil. Keys map to
// file paths in a local store and object names in a bucket, so one that
// could climb out of either is refused everywhere alike.
func ValidKey(key string) error {
	if len(key) > MaxKeyBytes {
		return fmt.Errorf("blob key is %d bytes, over the %d-byte limit", len(key), MaxKeyBytes)
	}
	if !keyPattern.MatchString(key) {
		return fmt.Errorf("blob key %q is not slash-separated names of letters, digits, '.', '_' and '-'", key)
	}
	for part := range strings.SplitSeq(key, "/") {
		if part == "." || part == ".." {
			return fmt.Errorf("blob key %q has a %q part", key, part)
		}
	}
	return nil
}
