package workspace

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"github.com/planmode/planmode/blobstore"
	"github.com/planmode/planmode/plan"
)

// DefaultMaxFiles is how many entries a recorded workspace may have when
// Files.MaxFiles is zero.
const DefaultMaxFiles = 50_000

// Files keeps workspaces in a blob store as content-addressed manifests:
// Record turns a folder into a manifest, Sync makes a folder equal to one,
// Merge joins the work of steps that ran side by side, Collect removes
// what no plan references any more. Its folders are opened only through
// os.Root, as the rest of the package does (see walk).
type Files struct {
	Store blobstore.Store
	// StateDir is a worker-private folder (created 0700) for stat caches,
	// staging and the copies of steps running side by side; never inside
	// a workspace.
	StateDir string
	// MaxFiles bounds the entries a workspace may have; 0 means
	// DefaultMaxFiles.
	MaxFiles int
	// MaxBytes bounds the bytes of file content; 0 means
	// DefaultSnapshotLimit.
	MaxBytes int64

	now func() time.Time // the clock; nil means time.Now
}

// Sub-folders of StateDir.
const (
	statDir    = "stat"
	stagingDir = "staging"
	copiesDir  = "copies"
)

// maxFiles returns the entry limit.
func (f *Files) maxFiles() int {
	if f.MaxFiles > 0 {
		return f.MaxFiles
	}
	return DefaultMaxFiles
}

// maxBytes returns the content limit.
func (f *Files) maxBytes() int64 {
	if f.MaxBytes > 0 {
		return f.MaxBytes
	}
	return DefaultSnapshotLimit
}

// clock returns the time now.
func (f *Files) clock() time.Time {
	if f.now != nil {
		return f.now()
	}
	return time.Now()
}

// CopyDir returns a private folder under StateDir for the copy of owner's
// workspace a step running beside others works in (Sync creates it).
func (f *Files) CopyDir(owner, stepID string) string {
	return filepath.Join(f.StateDir, copiesDir, hashOf([]byte(owner))[:16], plan.DefaultWorkspace(stepID))
}

// openState creates StateDir (0700) and its sub-folder sub and opens the
// latter.
func (f *Files) openState(sub string) (*os.Root, error) {
	if f.StateDir == "" || !filepath.IsAbs(f.StateDir) {
		return nil, fmt.Errorf("workspace state folder %q is not an absolute path", f.StateDir)
	}
	if err := os.MkdirAll(f.StateDir, 0o700); err != nil {
		return nil, fmt.Errorf("workspace state folder: %w", err)
	}
	if err := os.Chmod(f.StateDir, 0o700); err != nil {
		return nil, fmt.Errorf("workspace state folder: %w", err)
	}
	dir := filepath.Join(f.StateDir, sub)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("workspace state folder: %w", err)
	}
	root, err := os.OpenRoot(dir)
	if err != nil {
		return nil, fmt.Errorf("workspace state folder: %w", err)
	}
	return root, nil
}

// checkDir refuses a workspace folder that is not absolute, or that holds
// the state folder, or lies in it other than as a copy (CopyDir): a
// sandboxed command must never reach the stat caches.
func (f *Files) checkDir(dir string) (string, error) {
	if !filepath.IsAbs(dir) {
		return "", refuse(ErrRejected, nil, "workspace %q is not an absolute path", dir)
	}
	real, err := realPath(dir)
	if err != nil {
		return "", refuse(ErrRejected, err, "workspace %s: %v", dir, err)
	}
	state, err := realPath(f.StateDir)
	if err != nil {
		return "", fmt.Errorf("workspace state folder: %w", err)
	}
	r, s := filepath.ToSlash(real), filepath.ToSlash(state)
	if inside(r, s) || inside(s, r) && !inside(s+"/"+copiesDir, r) || r == s+"/"+copiesDir {
		return "", refuse(ErrSnapshot, nil, "the workspace %s overlaps the worker's state folder %s", real, state)
	}
	return real, nil
}

// statCache remembers, per local folder, the hash of each file by its
// stat, so a record reads only files whose stat changed. ctime is in the
// key because a sandboxed command can set a file's mtime back but not its
// ctime.
type statCache struct {
	// Manifest is the last one recorded or synced here: while the store
	// holds it, it holds the blobs the cache names (Collect removes a
	// manifest before its blobs).
	Manifest string               `json:"manifest,omitempty"`
	Files    map[string]statEntry `json:"files"`
	// Changing is set while a call changes the folder (Begin) and no
	// record has ended it since.
	Changing bool `json:"changing,omitempty"`
}

// At returns the manifest this worker last recorded dir as or brought it
// to, or "" when it knows none or a change began since that no record
// ended (Begin): then the folder may be half-way through a call that was
// interrupted, and only a Sync says what it holds. Changes made to dir
// from outside since are not looked for: they stay, and the next record
// keeps them.
func (f *Files) At(dir string) string {
	c := f.loadCache(dir)
	if c.Changing {
		return ""
	}
	return c.Manifest
}

// Begin marks dir as being changed by a call, until a Record or Sync of
// it ends (see At).
func (f *Files) Begin(dir string) error {
	c := f.loadCache(dir)
	c.Changing = true
	return f.saveCache(dir, c)
}

// statEntry is one file's stat key and hash.
type statEntry struct {
	Size  int64  `json:"s"`
	MTime int64  `json:"mt"`
	CTime int64  `json:"ct"`
	Ino   uint64 `json:"i"`
	Mode  uint32 `json:"m"`
	Hash  string `json:"h,omitempty"`
}

// racyWindow is how close to a record's start a file's ctime may be for
// its hash not to be remembered: the file may change again within the
// clock tick that stamped it, leaving its stat the same.
const racyWindow = 20 * time.Millisecond

// statKey returns the cache key of fi, or false where the platform gives
// no ctime and inode (then nothing is cached).
func statKey(fi fs.FileInfo) (statEntry, bool) {
	ctime, ino, ok := ctimeIno(fi)
	if !ok {
		return statEntry{}, false
	}
	return statEntry{Size: fi.Size(), MTime: fi.ModTime().UnixNano(), CTime: ctime, Ino: ino,
		Mode: uint32(fi.Mode())}, true
}

// lookup returns the hash remembered for rel when its stat is fi's.
func (c *statCache) lookup(rel string, fi fs.FileInfo) (string, bool) {
	key, ok := statKey(fi)
	old, found := c.Files[rel]
	if !ok || !found || old.Hash == "" {
		return "", false
	}
	hash := old.Hash
	old.Hash = ""
	return hash, old == key
}

// remember records hash for rel with the stat fi, unless fi's ctime is
// within racyWindow of start.
func (c *statCache) remember(rel string, fi fs.FileInfo, hash string, start time.Time) {
	key, ok := statKey(fi)
	if !ok || key.CTime >= start.Add(-racyWindow).UnixNano() {
		return
	}
	key.Hash = hash
	c.Files[rel] = key
}

// cacheName returns the stat cache file of the folder dir.
func cacheName(dir string) string { return hashOf([]byte(dir)) + ".json" }

// loadCache reads the stat cache of dir; a missing or unreadable one is
// an empty cache.
func (f *Files) loadCache(dir string) *statCache {
	c := &statCache{}
	root, err := f.openState(statDir)
	if err == nil {
		defer root.Close()
		if data, err := root.ReadFile(cacheName(dir)); err == nil {
			_ = json.Unmarshal(data, c) // a damaged cache only costs hashing
		}
	}
	if c.Files == nil {
		c.Files = map[string]statEntry{}
	}
	return c
}

// saveCache replaces the stat cache of dir atomically.
func (f *Files) saveCache(dir string, c *statCache) error {
	root, err := f.openState(statDir)
	if err != nil {
		return err
	}
	defer root.Close()
	data, err := json.Marshal(c)
	if err != nil {
		return err
	}
	if err := writeAtomic(root, cacheName(dir), bytes.NewReader(data), 0o600); err != nil {
		return fmt.Errorf("save the stat cache: %w", err)
	}
	return nil
}
