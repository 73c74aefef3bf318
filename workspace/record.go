package workspace

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"time"

	"github.com/planmode/planmode/blobstore"
	"github.com/planmode/planmode/plan"
)

// RecordRequest says which folder to record, as whose workspace.
type RecordRequest struct {
	Dir    string       // the folder, an absolute path
	Owner  string       // its workspace key (see plan.ValidWorkspaceKey)
	PlanID string       // when set, the manifest is pinned for this plan
	Beat   func(...any) // called every few hundred files, when set
}

// Recorded is what Record stored.
type Recorded struct {
	ID    string // the manifest's id
	Files int    // its entries: files, folders and symlinks
	Bytes int64  // the bytes of its files
	// NewBlobs and NewBytes count the file blobs this record put, absent
	// from the store before.
	NewBlobs int
	NewBytes int64
	Hashed   int    // files read and hashed: the stat cache did not answer
	Skipped  []Skip // what was left out and why, sorted by path
}

// Record stores the folder req.Dir as a manifest owned by req.Owner and
// returns its id. The manifest is stored as its differences from the one
// the folder was last recorded as or brought to, when the store holds
// that one and the differences are the smaller; a folder that holds what
// that manifest does gets its id, and nothing new is stored. It walks the folder
// as a snapshot does, .git included, and leaves out (and lists in
// Skipped) files with more than one hard link, symlinks leading outside,
// anything but files, folders and symlinks, and entries swapped or
// written while it ran. It reads only the files whose stat changed since
// the last record or sync of the folder, and puts only the blobs the
// store lacks. A folder over MaxFiles entries or MaxBytes of content is
// an ErrSnapshot refusal found before any file is read; a missing folder,
// or one that overlaps StateDir, is refused too. A store failure is
// returned wrapped as it came.
func (f *Files) Record(ctx context.Context, req RecordRequest) (Recorded, error) {
	if err := plan.ValidWorkspaceKey(req.Owner); err != nil {
		return Recorded{}, refuse(ErrSnapshot, err, "record: %v", err)
	}
	dir, err := f.checkDir(req.Dir)
	if err != nil {
		return Recorded{}, err
	}
	root, err := os.OpenRoot(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return Recorded{}, refuse(ErrRejected, err, "record: workspace %s does not exist", dir)
	}
	if err != nil {
		return Recorded{}, fmt.Errorf("record %s: %w", dir, err)
	}
	defer root.Close()
	start := f.clock()
	s := &scan{root: root, cache: f.loadCache(dir), beat: req.Beat, maxFiles: f.maxFiles(), maxBytes: f.maxBytes()}
	if err := s.run(ctx); err != nil {
		return Recorded{}, f.scanErr(dir, s, err)
	}
	base, trusted, err := f.baseOf(ctx, s.cache.Manifest, req.Owner)
	if err != nil {
		return Recorded{}, fmt.Errorf("record %s: %w", dir, err)
	}
	rc := &recorder{f: f, root: root, start: start, beat: req.Beat, trusted: trusted,
		next: &statCache{Files: map[string]statEntry{}}, put: map[string]bool{}, rec: Recorded{Skipped: s.skipped}}
	m := &Manifest{Owner: req.Owner}
	for i := range s.entries {
		l := &s.entries[i]
		if l.Kind == EntryFile {
			kept, err := rc.file(ctx, l)
			if err != nil {
				return Recorded{}, fmt.Errorf("record %s: %s: %w", dir, l.Path, err)
			}
			if !kept {
				rc.rec.Skipped = append(rc.rec.Skipped, Skip{Path: l.Path, Reason: skipChanged})
				continue
			}
			rc.rec.Bytes += l.Size
		}
		m.Entries = append(m.Entries, l.ManifestEntry)
	}
	id, err := f.putManifest(ctx, m, base, req.PlanID)
	if err != nil {
		return Recorded{}, fmt.Errorf("record %s: %w", dir, err)
	}
	rc.next.Manifest = id
	if err := f.saveCache(dir, rc.next); err != nil {
		return Recorded{}, fmt.Errorf("record %s: %w", dir, err)
	}
	rc.rec.ID, rc.rec.Files = id, len(m.Entries)
	sortSkips(rc.rec.Skipped)
	return rc.rec, nil
}

// scanErr turns a scan's stop at a limit into a refusal that says which.
func (f *Files) scanErr(dir string, s *scan, err error) error {
	switch {
	case errors.Is(err, errTooMany):
		return refuse(ErrSnapshot, nil, "workspace %s has more than %d entries (files, folders and symlinks; "+
			"counting stopped at %d): over the limit workspace.maxFiles sets", dir, f.maxFiles(), len(s.entries))
	case errors.Is(err, errTooLarge):
		return refuse(ErrSnapshot, nil, "workspace %s holds more than %d MiB of files (%d bytes counted when it "+
			"stopped): over the limit workspace.snapshotLimit sets", dir, f.maxBytes()>>20, s.bytes)
	}
	return fmt.Errorf("walk %s: %w", dir, err)
}

// baseOf loads manifest id, the one a folder's stat cache says it was
// last recorded as or brought to, as the base of the folder's next
// record when owner owns it. trusted says whether the blobs the stat
// cache names may be taken to be in the store: the manifest is, and
// Collect keeps a manifest's blobs and bases while it keeps it. A
// manifest the store lost or refuses is no base, nor trusted; only a
// failing store is an error.
func (f *Files) baseOf(ctx context.Context, id, owner string) (base *based, trusted bool, err error) {
	if !ValidManifestID(id) {
		return nil, false, nil
	}
	info, err := f.Store.Stat(ctx, manifestKey(id))
	switch {
	case errors.Is(err, blobstore.ErrNotFound):
		return nil, false, nil
	case err != nil:
		return nil, false, fmt.Errorf("the manifest it was last at: %w", err)
	case f.clock().Sub(info.ModTime) > freshFor:
		// A collection may be removing an old manifest, or the blobs only
		// it names, right now: build on nothing older than freshFor.
		return nil, false, nil
	}
	m, depth, err := f.load(ctx, id)
	switch {
	case errors.Is(err, ErrSnapshot) || errors.Is(err, ErrCorrupt):
		return nil, false, nil
	case err != nil:
		return nil, false, fmt.Errorf("the manifest it was last at: %w", err)
	case m.Owner != owner:
		return nil, true, nil
	}
	return &based{id: id, m: m, depth: depth}, true, nil
}

// freshFor is how old a manifest or blob a record may build on without
// writing it again: well inside the grace period a collection leaves what
// is younger (an hour), so that what a record relies on is never what a
// collection running at the same time removes.
const freshFor = 15 * time.Minute

// recorder stores the files of one record.
type recorder struct {
	f       *Files
	root    *os.Root
	start   time.Time
	beat    func(...any)
	trusted bool            // the blobs the old stat cache names are stored
	next    *statCache      // the stat cache saved after the record
	put     map[string]bool // blobs known stored during this record
	rec     Recorded
}

// file hashes the file l unless the stat cache knew its hash, and puts
// its blob unless the store holds it. It reports false when the file
// changed while being read: it is left out.
func (rc *recorder) file(ctx context.Context, l *local) (bool, error) {
	fi, cached := l.info, l.Hash != ""
	if !cached {
		hash, now, err := hashFile(rc.root, l)
		if errors.Is(err, errChanged) {
			return false, nil
		}
		if err != nil {
			return false, err
		}
		if linkCount(now) > 1 { // linked since listed
			return false, nil
		}
		l.Hash, l.Size, fi = hash, now.Size(), now
		if rc.rec.Hashed++; rc.rec.Hashed%beatEvery == 0 && rc.beat != nil {
			rc.beat("hash", rc.rec.Hashed)
		}
	}
	if !(cached && rc.trusted) && !rc.put[l.Hash] {
		kept, err := rc.putBlob(ctx, l)
		if !kept || err != nil {
			return false, err
		}
	}
	rc.put[l.Hash] = true
	rc.next.remember(l.Path, fi, l.Hash, rc.start)
	return true, nil
}

// putBlob puts the content of l under its hash unless the store holds
// it, reading the file again and checking it still hashes the same.
func (rc *recorder) putBlob(ctx context.Context, l *local) (bool, error) {
	key := blobKey(l.Hash)
	info, err := rc.f.Store.Stat(ctx, key)
	if err == nil && rc.f.clock().Sub(info.ModTime) <= freshFor {
		return true, nil
	}
	// An old blob is put again, which renews it: a collection running now
	// keeps what was written since it began.
	if err != nil && !errors.Is(err, blobstore.ErrNotFound) {
		return false, fmt.Errorf("stat blob: %w", err)
	}
	in, _, err := openFile(rc.root, l.Path, l.info)
	if errors.Is(err, errChanged) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	defer in.Close()
	v := newVerifyingReader(in, l.Size, l.Hash)
	if err := rc.f.Store.Put(ctx, key, v, l.Size); err != nil {
		if v.mismatch {
			return false, nil
		}
		return false, fmt.Errorf("put blob: %w", err)
	}
	rc.rec.NewBlobs++
	rc.rec.NewBytes += l.Size
	return true, nil
}
