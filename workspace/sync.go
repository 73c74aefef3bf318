package workspace

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"time"

	"github.com/planmode/planmode/blobstore"
)

// SyncRequest says which manifest to make a folder equal to, as whose
// workspace.
type SyncRequest struct {
	Dir   string       // the folder, an absolute path; created when missing
	Owner string       // its workspace key: the manifest's owner
	ID    string       // the manifest
	Beat  func(...any) // called every few hundred files, when set
}

// Synced is what Sync changed.
type Synced struct {
	Written      []string // files, symlinks and folders written, sorted
	Removed      []string // entries removed, sorted
	Fetched      int      // blobs fetched from the store
	FetchedBytes int64
}

// Sync makes the folder req.Dir equal to manifest req.ID, leaving alone
// what a record skips there (hard-linked files, fifos, symlinks leading
// out). It fetches and verifies every blob it needs before it touches
// the folder: a blob that does not match its hash is an error wrapping
// ErrCorrupt, a store failure one wrapping the store's error, and the
// folder is as it was. It then writes through the folder's os.Root, each
// file atomically, and removes what the manifest lacks, deepest first.
// A folder that already matches is not written to. A missing manifest,
// or one owned by another workspace, is an ErrSnapshot refusal.
func (f *Files) Sync(ctx context.Context, req SyncRequest) (Synced, error) {
	b, err := f.loadOwned(ctx, req.ID, req.Owner)
	if err != nil {
		return Synced{}, err
	}
	m := b.m
	dir, err := f.checkDir(req.Dir)
	if err != nil {
		return Synced{}, err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return Synced{}, fmt.Errorf("sync %s: %w", dir, err)
	}
	root, err := os.OpenRoot(dir)
	if err != nil {
		return Synced{}, fmt.Errorf("sync %s: %w", dir, err)
	}
	defer root.Close()
	s := &scan{root: root, cache: f.loadCache(dir), beat: req.Beat}
	if err := s.run(ctx); err != nil {
		return Synced{}, fmt.Errorf("sync %s: %w", dir, err)
	}
	p, err := compare(ctx, root, s, m)
	if err != nil {
		return Synced{}, fmt.Errorf("sync %s: %w", dir, err)
	}
	staging, err := f.openState(stagingDir)
	if err != nil {
		return Synced{}, err
	}
	defer staging.Close()
	st := &stage{f: f, dir: staging.Name(), name: tempName()}
	defer st.cleanup()
	if err := st.fetch(ctx, p.writes); err != nil {
		if errors.Is(err, blobstore.ErrNotFound) {
			err = fmt.Errorf("%w: the store lost a file of manifest %s: %w", ErrCorrupt, req.ID, err)
		}
		return Synced{}, fmt.Errorf("sync %s: %w", dir, err)
	}
	if len(p.writes)+len(p.removes) > 0 {
		// Until the cache below is saved, the folder is neither what it
		// was nor the manifest: a sync cut off half-way is redone.
		if err := f.Begin(dir); err != nil {
			return Synced{}, fmt.Errorf("sync %s: %w", dir, err)
		}
	}
	ap := &applier{root: root, stage: st, beat: req.Beat, now: f.clock}
	if err := ap.apply(ctx, p); err != nil {
		return Synced{}, fmt.Errorf("sync %s: %w", dir, err)
	}
	if err := f.saveCache(dir, ap.cache(req.ID, p)); err != nil {
		return Synced{}, fmt.Errorf("sync %s: %w", dir, err)
	}
	return Synced{Written: ap.written, Removed: ap.removed, Fetched: st.fetched, FetchedBytes: st.bytes}, nil
}

// stage holds the blobs a sync needs, fetched and verified, in a folder
// of the state folder.
type stage struct {
	f       *Files
	dir     string // the staging folder
	name    string // this sync's folder in it
	root    *os.Root
	have    map[string]bool
	fetched int
	bytes   int64
}

// fetch fetches the blob of every file in writes.
func (st *stage) fetch(ctx context.Context, writes []ManifestEntry) error {
	st.have = map[string]bool{}
	for _, w := range writes {
		if w.Kind != EntryFile || st.have[w.Hash] {
			continue
		}
		if st.root == nil {
			if err := os.Mkdir(filepath.Join(st.dir, st.name), 0o700); err != nil {
				return err
			}
			root, err := os.OpenRoot(filepath.Join(st.dir, st.name))
			if err != nil {
				return err
			}
			st.root = root
		}
		if err := st.fetchOne(ctx, w.Hash); err != nil {
			return fmt.Errorf("fetch blob %s for %s: %w", w.Hash, w.Path, err)
		}
		st.have[w.Hash] = true
	}
	return nil
}

// fetchOne copies blob hash into the stage, checking its hash.
func (st *stage) fetchOne(ctx context.Context, hash string) error {
	rc, err := st.f.Store.Get(ctx, blobKey(hash))
	if err != nil {
		return err
	}
	defer rc.Close()
	out, err := st.root.OpenFile(hash, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return err
	}
	h := sha256.New()
	n, err := io.Copy(io.MultiWriter(out, h), rc)
	if cerr := out.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return err
	}
	if hex.EncodeToString(h.Sum(nil)) != hash {
		return fmt.Errorf("its content does not hash to its key: %w", ErrCorrupt)
	}
	st.fetched++
	st.bytes += n
	return nil
}

// open opens the staged blob hash.
func (st *stage) open(hash string) (*os.File, error) { return st.root.Open(hash) }

// cleanup removes the stage.
func (st *stage) cleanup() {
	if st.root != nil {
		st.root.Close()
		os.RemoveAll(filepath.Join(st.dir, st.name))
	}
}

// applier changes a folder as a syncPlan says.
type applier struct {
	root    *os.Root
	stage   *stage
	beat    func(...any)
	n       int
	written []string
	removed []string
	wrote   []local // files written, with their stat after
	now     func() time.Time
}

// apply removes, then writes, in the plan's order.
func (ap *applier) apply(ctx context.Context, p *syncPlan) error {
	for _, rel := range p.removes {
		if err := ap.step(ctx); err != nil {
			return err
		}
		hook("remove", rel)
		if err := ap.root.Remove(rel); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("remove %s: %w", rel, err)
		}
		ap.removed = append(ap.removed, rel)
	}
	for _, w := range p.writes {
		if err := ap.step(ctx); err != nil {
			return err
		}
		hook("restore", w.Path)
		if err := ap.write(w); err != nil {
			return fmt.Errorf("write %s: %w", w.Path, err)
		}
		ap.written = append(ap.written, w.Path)
	}
	slices.Sort(ap.removed)
	slices.Sort(ap.written)
	return nil
}

// step checks for cancellation and beats every few hundred entries.
func (ap *applier) step(ctx context.Context) error {
	if ap.n++; ap.n%beatEvery == 0 && ap.beat != nil {
		ap.beat("sync", ap.n)
	}
	return ctx.Err()
}

// write puts one manifest entry in place through the folder holding it,
// opened through the root: a folder swapped for a symlink that leads out
// cannot be opened, so nothing is written outside.
func (ap *applier) write(w ManifestEntry) error {
	if w.Kind == EntryDir {
		if err := ap.root.Mkdir(w.Path, 0o700); err != nil && !errors.Is(err, fs.ErrExist) {
			return err
		}
		sub, err := ap.root.OpenRoot(w.Path + "/.")
		if err != nil {
			return err
		}
		defer sub.Close()
		return chmodDir(sub, fs.FileMode(w.Mode)|0o700)
	}
	parent, err := ap.root.OpenRoot(path.Dir(w.Path) + "/.")
	if err != nil {
		return err
	}
	defer parent.Close()
	name := path.Base(w.Path)
	if w.Kind == EntryLink {
		tmp := tempName()
		if err := parent.Symlink(w.Target, tmp); err != nil {
			return err
		}
		if err := parent.Rename(tmp, name); err != nil {
			parent.Remove(tmp)
			return err
		}
		return nil
	}
	src, err := ap.stage.open(w.Hash)
	if err != nil {
		return err
	}
	defer src.Close()
	if err := writeAtomic(parent, name, src, fs.FileMode(w.Mode)); err != nil {
		return err
	}
	if fi, err := parent.Lstat(name); err == nil {
		ap.wrote = append(ap.wrote, local{ManifestEntry: w, info: fi})
	}
	return nil
}

// cache returns the stat cache of the folder after the sync: the files
// that matched and the ones written. It waits out the clock tick that
// stamped the files written, so a change made after the sync returns
// gives them a new ctime.
func (ap *applier) cache(id string, p *syncPlan) *statCache {
	c := &statCache{Manifest: id, Files: map[string]statEntry{}}
	if len(ap.wrote) > 0 {
		time.Sleep(racyWindow)
	}
	now := ap.now()
	for _, l := range append(p.known, ap.wrote...) {
		c.remember(l.Path, l.info, l.Hash, now)
	}
	return c
}
