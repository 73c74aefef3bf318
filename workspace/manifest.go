package workspace

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"path"
	"strings"
	"unicode/utf8"

	"github.com/planmode/planmode/blobstore"
	"github.com/planmode/planmode/plan"
)

// Manifest lists a workspace's entries as it was recorded. The store
// keeps it whole or as its differences from an earlier manifest of the
// same owner (see stored), under the id that is the SHA-256 of what it
// keeps; Load returns it whole.
type Manifest struct {
	V     int    `json:"v"`
	Owner string `json:"owner"` // the workspace key it was recorded from (or adopted by)
	// Entries are sorted by path, unique, every parent a dir entry.
	Entries []ManifestEntry `json:"entries"`
}

// EntryKind is what a manifest entry is.
type EntryKind string

// The kinds of manifest entries.
const (
	EntryFile EntryKind = "f"
	EntryDir  EntryKind = "d"
	EntryLink EntryKind = "l"
)

// ManifestEntry is one file, folder or symlink of a manifest.
type ManifestEntry struct {
	Path   string    `json:"p"`           // slash-separated, relative, clean
	Kind   EntryKind `json:"k"`           // f, d or l
	Mode   uint32    `json:"m,omitempty"` // permission bits of a file or dir
	Size   int64     `json:"s,omitempty"` // a file's size
	Hash   string    `json:"h,omitempty"` // a file's SHA-256, 64 hex
	Target string    `json:"t,omitempty"` // a symlink's target
}

// manifestVersion is the version of a whole manifest.
const manifestVersion = 1

// maxManifestBytes bounds a manifest read from the store: DefaultMaxFiles
// entries of long paths fit many times over.
const maxManifestBytes = 256 << 20

// ErrCorrupt marks (wrapped) a blob or manifest whose content does not
// hash to its key: the store lost or changed it. No retry fixes it.
var ErrCorrupt = errors.New("stored content does not match its hash")

// Keys in the blob store: one definition each.
func blobKey(hash string) string     { return "blobs/" + hash[:2] + "/" + hash }
func manifestKey(id string) string   { return "manifests/" + id }
func pinPrefix(planID string) string { return "pins/" + plan.DefaultWorkspace(planID) + "/" }

const (
	blobsPrefix     = "blobs/"
	manifestsPrefix = "manifests/"
	pinsPrefix      = "pins/"
)

// ValidManifestID reports whether id looks like a manifest id: 64
// lowercase hex digits.
func ValidManifestID(id string) bool { return validHash(id) }

// validHash reports whether h is 64 lowercase hex digits.
func validHash(h string) bool {
	if len(h) != 64 {
		return false
	}
	for i := range len(h) {
		if c := h[i]; (c < '0' || c > '9') && (c < 'a' || c > 'f') {
			return false
		}
	}
	return true
}

// hashOf returns the hex SHA-256 of data.
func hashOf(data []byte) string {
	sum := sha256.Sum256(data)
	return hex.EncodeToString(sum[:])
}

// validate checks what a sync relies on: the version, an owner, and
// entries sorted and unique, of clean relative paths below present
// folders, of known kinds, with file hashes of 64 hex and symlinks that
// stay inside the workspace.
func (m *Manifest) validate() error {
	if m.V != manifestVersion {
		return fmt.Errorf("version %d, not %d", m.V, manifestVersion)
	}
	if err := plan.ValidWorkspaceKey(m.Owner); err != nil {
		return fmt.Errorf("owner: %w", err)
	}
	dirs := map[string]bool{".": true}
	for i, e := range m.Entries {
		if err := validPath(e.Path); err != nil {
			return err
		}
		if i > 0 && m.Entries[i-1].Path >= e.Path {
			return fmt.Errorf("entry %q is out of order or repeated", e.Path)
		}
		if !dirs[path.Dir(e.Path)] {
			return fmt.Errorf("entry %q lies in no folder the manifest holds", e.Path)
		}
		if err := e.validate(); err != nil {
			return fmt.Errorf("entry %q: %w", e.Path, err)
		}
		if e.Kind == EntryDir {
			dirs[e.Path] = true
		}
	}
	return nil
}

// validPath refuses a path that is not clean, relative and slash-separated.
func validPath(p string) error {
	switch {
	case p == "" || p == "." || path.Clean(p) != p || path.IsAbs(p) || climbs(p):
		return fmt.Errorf("path %q is not a clean path inside the workspace", p)
	case !utf8.ValidString(p) || strings.ContainsAny(p, "\x00\\"):
		return fmt.Errorf("path %q holds a NUL, a backslash or invalid UTF-8", p)
	}
	return nil
}

// validate checks one entry by its kind.
func (e ManifestEntry) validate() error {
	switch e.Kind {
	case EntryFile:
		if !validHash(e.Hash) || e.Size < 0 || e.Mode&^0o7777 != 0 {
			return fmt.Errorf("a file needs a 64-hex hash, a size and permission bits")
		}
	case EntryDir:
		if e.Hash != "" || e.Target != "" || e.Mode&^0o7777 != 0 {
			return fmt.Errorf("a folder has permission bits only")
		}
	case EntryLink:
		if linkLeadsOut(e.Path, e.Target) {
			return fmt.Errorf("symlink to %q may lead outside the workspace", e.Target)
		}
	default:
		return fmt.Errorf("unknown kind %q", e.Kind)
	}
	return nil
}

// Load fetches manifest id from the store, with the chain of manifests
// it lists changes to, checks each hashes to its id (else an error
// wrapping ErrCorrupt), and returns the whole manifest they resolve to,
// validated. A malformed id, a missing manifest or base, or an invalid
// one is an ErrSnapshot refusal; a store failure is returned wrapped as
// it came.
func (f *Files) Load(ctx context.Context, id string) (*Manifest, error) {
	m, _, err := f.load(ctx, id)
	return m, err
}

// loadOwned loads manifest id and refuses it unless owner recorded it.
func (f *Files) loadOwned(ctx context.Context, id, owner string) (*based, error) {
	m, depth, err := f.load(ctx, id)
	if err != nil {
		return nil, err
	}
	if m.Owner != owner {
		return nil, refuse(ErrSnapshot, nil, "manifest %s belongs to another workspace (%s, not %s)", id, m.Owner, owner)
	}
	return &based{id: id, m: m, depth: depth}, nil
}

// putManifest stores m, as a delta over base when that is smaller (see
// encodeStored; base may be nil), pins it for planID when one is given,
// and returns its id: base's own when m holds what base does.
func (f *Files) putManifest(ctx context.Context, m *Manifest, base *based, planID string) (string, error) {
	m.V = manifestVersion
	if err := m.validate(); err != nil {
		return "", fmt.Errorf("manifest: %w", err)
	}
	data, id, err := encodeStored(m, base)
	if err != nil {
		return "", err
	}
	if data != nil {
		if _, err := f.putIfAbsent(ctx, manifestKey(id), data); err != nil {
			return "", fmt.Errorf("put manifest %s: %w", id, err)
		}
	}
	if planID != "" {
		pin := []byte(planID)
		if err := f.Store.Put(ctx, pinPrefix(planID)+id, bytes.NewReader(pin), int64(len(pin))); err != nil {
			return "", fmt.Errorf("pin manifest %s: %w", id, err)
		}
	}
	return id, nil
}

// putIfAbsent puts data under key unless the store holds it already, and
// reports whether it put it.
func (f *Files) putIfAbsent(ctx context.Context, key string, data []byte) (bool, error) {
	_, err := f.Store.Stat(ctx, key)
	if err == nil || !errors.Is(err, blobstore.ErrNotFound) {
		return false, err
	}
	return true, f.Store.Put(ctx, key, bytes.NewReader(data), int64(len(data)))
}

// getAll reads the blob under key whole, refusing one over max bytes.
func (f *Files) getAll(ctx context.Context, key string, max int64) ([]byte, error) {
	rc, err := f.Store.Get(ctx, key)
	if err != nil {
		return nil, err
	}
	defer rc.Close()
	data, err := io.ReadAll(io.LimitReader(rc, max+1))
	if err != nil {
		return nil, err
	}
	if int64(len(data)) > max {
		return nil, fmt.Errorf("%s is over %d bytes", key, max)
	}
	return data, nil
}

// fetchBlob reads the file blob hash whole and verifies it, for a merge.
func (f *Files) fetchBlob(ctx context.Context, hash string, max int64) ([]byte, error) {
	data, err := f.getAll(ctx, blobKey(hash), max)
	if err != nil {
		return nil, fmt.Errorf("fetch blob %s: %w", hash, err)
	}
	if hashOf(data) != hash {
		return nil, fmt.Errorf("blob %s: its content does not hash to its key: %w", hash, ErrCorrupt)
	}
	return data, nil
}

// Adopt copies manifest id, which fromOwner must own (else an ErrSnapshot
// refusal), as a whole manifest of toOwner pinned for planID, and
// returns the copy's id: a fork, which starts a chain of its own. The
// blobs are shared, not copied.
func (f *Files) Adopt(ctx context.Context, id, fromOwner, toOwner, planID string) (string, error) {
	if err := plan.ValidWorkspaceKey(toOwner); err != nil {
		return "", refuse(ErrSnapshot, err, "adopt: %v", err)
	}
	b, err := f.loadOwned(ctx, id, fromOwner)
	if err != nil {
		return "", err
	}
	b.m.Owner = toOwner
	newID, err := f.putManifest(ctx, b.m, nil, planID)
	if err != nil {
		return "", fmt.Errorf("adopt %s: %w", id, err)
	}
	return newID, nil
}
