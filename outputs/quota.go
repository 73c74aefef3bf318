package outputs

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sync"
	"time"
)

// Defaults of the store's caps.
const (
	// DefaultMaxPlanBytes bounds one plan's folder: a plan printing
	// without end fills its own folder, not the disk.
	DefaultMaxPlanBytes int64 = 256 << 20
	// DefaultMaxBytes bounds the whole store; past it the folders written
	// longest ago make room.
	DefaultMaxBytes int64 = 4 << 30
)

// ledger is what a Store knows of the bytes in it: a count per plan
// folder and their sum, learnt from the disk once and then kept up to
// date by every write, so that no write walks the store.
type ledger struct {
	mu    sync.Mutex
	plans map[string]*usage // nil until the first use walks the store
	total int64
}

// usage is what one plan's folder holds.
type usage struct {
	bytes   int64 // on disk or promised to a file being written
	writers int   // files being written in it, which keep it from removal
}

// maxPlan returns the cap of one plan's folder.
func (s *Store) maxPlan() int64 {
	if s.MaxPlanBytes > 0 {
		return s.MaxPlanBytes
	}
	return DefaultMaxPlanBytes
}

// maxTotal returns the cap of the whole store.
func (s *Store) maxTotal() int64 {
	if s.MaxBytes > 0 {
		return s.MaxBytes
	}
	return DefaultMaxBytes
}

// reserve promises up to n more bytes to a file of folder and returns how
// many it may keep, and, when fewer than n, which cap stopped it. When
// the store would pass its cap, the folders written longest ago but
// folder and those being written are removed first.
func (s *Store) reserve(folder string, n int64) (int64, cut) {
	s.mu.Lock()
	defer s.mu.Unlock()
	u := s.usageLocked(folder)
	grant, why := n, cutNone
	if room := s.maxPlan() - u.bytes; grant > room {
		grant, why = max(room, 0), cutPlan
	}
	if over := s.total + grant - s.maxTotal(); over > 0 {
		s.evictLocked(folder, over)
		if room := s.maxTotal() - s.total; grant > room {
			grant, why = max(room, 0), cutStore
		}
	}
	u.bytes += grant
	s.total += grant
	return grant, why
}

// add counts n more bytes in folder without refusing them.
func (s *Store) add(folder string, n int64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.usageLocked(folder).bytes += n
	s.total += n
}

// release frees n bytes of folder: a file discarded or replaced.
func (s *Store) release(folder string, n int64) {
	if n <= 0 {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	u := s.usageLocked(folder)
	n = min(n, u.bytes)
	u.bytes -= n
	s.total -= n
}

// writing and finished count the files being written in folder.
func (s *Store) writing(folder string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.usageLocked(folder).writers++
}

func (s *Store) finished(folder string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.usageLocked(folder).writers--
}

// seedLocked learns, at the store's first use, what is on disk: one walk
// of the whole store.
func (s *Store) seedLocked() {
	if s.plans != nil {
		return
	}
	s.plans = map[string]*usage{}
	// What an earlier version left readable to others is closed.
	_ = os.Chmod(s.dir, 0o700)
	entries, _ := os.ReadDir(s.dir)
	for _, e := range entries {
		if e.IsDir() && isPlanFolder(filepath.Join(s.dir, e.Name())) {
			s.usageLocked(e.Name())
		}
	}
}

// outputFile matches the names of a store's files and of their temporary
// files (see Store.path and File.open).
var outputFile = regexp.MustCompile(`^\.?[A-Za-z0-9_][A-Za-z0-9._-]*-(` + string(FromModel) + `|` + string(FromTool) +
	`)-[A-Za-z0-9._-]+\.txt(\.[0-9]+\.tmp)?$`)

// isPlanFolder reports whether dir holds nothing but output files, so
// that removing it removes outputs only: a store set to a folder that
// holds other things (a home folder, a parent of the snapshots) neither
// counts nor removes them.
func isPlanFolder(dir string) bool {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return false
	}
	for _, e := range entries {
		if !e.Type().IsRegular() || !outputFile.MatchString(e.Name()) {
			return false
		}
	}
	return true
}

// usageLocked returns folder's usage. A folder first seen after the
// store's first use (another worker made it) is walked when first used.
func (s *Store) usageLocked(folder string) *usage {
	s.seedLocked()
	u := s.plans[folder]
	if u == nil {
		u = &usage{bytes: measure(filepath.Join(s.dir, folder))}
		s.plans[folder] = u
		s.total += u.bytes
	}
	return u
}

// measure returns the bytes of the regular files under dir (0 when it
// does not exist), closing to others what an earlier version left open.
func measure(dir string) int64 {
	var n int64
	_ = filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		info, err := d.Info()
		switch {
		case err != nil:
		case d.IsDir() && info.Mode().Perm() != 0o700:
			_ = os.Chmod(path, 0o700)
		case info.Mode().IsRegular():
			n += info.Size()
			if info.Mode().Perm()&0o077 != 0 {
				_ = os.Chmod(path, 0o600)
			}
		}
		return nil
	})
	return n
}

// folderAge is a plan folder and when it was last written.
type folderAge struct {
	name string
	mod  time.Time
}

// idleFoldersLocked lists the store's plan folders that no file is being
// written in, but keep, oldest first.
func (s *Store) idleFoldersLocked(keep string) ([]folderAge, error) {
	entries, err := os.ReadDir(s.dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var out []folderAge
	for _, e := range entries {
		if !e.IsDir() || e.Name() == keep {
			continue
		}
		if u := s.plans[e.Name()]; u != nil && u.writers > 0 || !isPlanFolder(filepath.Join(s.dir, e.Name())) {
			continue
		}
		if info, err := e.Info(); err == nil {
			out = append(out, folderAge{e.Name(), info.ModTime()})
		}
	}
	slices.SortFunc(out, func(a, b folderAge) int { return a.mod.Compare(b.mod) })
	return out, nil
}

// evictLocked removes the folders written longest ago, but keep and those
// being written, until need bytes are freed or none is left. A folder it
// cannot remove is skipped: the caller then keeps less.
func (s *Store) evictLocked(keep string, need int64) {
	idle, _ := s.idleFoldersLocked(keep)
	for _, f := range idle {
		if need <= 0 {
			return
		}
		freed, _ := s.removeLocked(f.name)
		need -= freed
	}
}

// removeLocked removes folder and returns the bytes it freed. What a
// failed removal left is measured again.
func (s *Store) removeLocked(folder string) (int64, error) {
	u := s.usageLocked(folder)
	path := filepath.Join(s.dir, folder)
	if err := os.RemoveAll(path); err != nil {
		left := measure(path)
		freed := u.bytes - left
		u.bytes, s.total = left, s.total-freed
		return freed, fmt.Errorf("remove outputs %s: %w", path, err)
	}
	delete(s.plans, folder)
	s.total -= u.bytes
	return u.bytes, nil
}

// Prune removes the plan folders last written before now minus retention
// (outputs.retention), but those a file is being written in, and returns
// their names. Removing is idempotent, so every worker sharing the store
// may prune it. A folder it cannot remove is named in the error and
// tried again at the next prune.
func (s *Store) Prune(now time.Time, retention time.Duration) ([]string, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.seedLocked()
	idle, err := s.idleFoldersLocked("")
	if err != nil {
		return nil, fmt.Errorf("prune outputs: %w", err)
	}
	cutoff := now.Add(-retention)
	var removed []string
	var errs []error
	for _, f := range idle {
		if !f.mod.Before(cutoff) {
			break
		}
		if _, err := s.removeLocked(f.name); err != nil {
			errs = append(errs, err)
			continue
		}
		removed = append(removed, f.name)
	}
	return removed, errors.Join(errs...)
}
