package workspace

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"sort"
)

// snapEntry is one entry of a snapshot: its kind, and a symlink's target.
type snapEntry struct {
	kind   entryKind
	target string
}

// restorer makes a workspace equal to a snapshot.
type restorer struct {
	ctx      context.Context
	index    map[string]snapEntry // the snapshot's entries by path
	skipped  map[string]bool      // what the snapshot left out: left alone
	beat     func(...any)
	n        int
	restored []string
	removed  []string
}

// restoreTree makes the workspace ws equal to the snapshot tree snap
// (whose manifest is m). It reads the whole snapshot first, refusing one
// with a symlink that leads outside before anything changes; then it
// removes what the snapshot lacks (or holds as another kind of entry),
// then puts back every file and symlink that is missing or differs.
func restoreTree(ctx context.Context, snap, ws *os.Root, m *snapshotManifest, beat func(...any)) (restored,
	removed []string, err error) {
	rs := &restorer{ctx: ctx, index: map[string]snapEntry{}, skipped: map[string]bool{}, beat: beat,
		restored: []string{}, removed: []string{}}
	for _, s := range m.Skipped {
		rs.skipped[s.Path] = true
	}
	if err := walk(ctx, snap, "", rs.indexEntry); err != nil {
		var refusal *Refusal
		if errors.As(err, &refusal) {
			return nil, nil, err
		}
		return nil, nil, fmt.Errorf("restore: read snapshot: %w", err)
	}
	if err := walk(ctx, ws, "", rs.removeExtra); err != nil {
		return nil, nil, fmt.Errorf("restore: remove new files: %w", err)
	}
	if err := rs.putBack(snap, ws, ""); err != nil {
		return nil, nil, fmt.Errorf("restore: put files back: %w", err)
	}
	sort.Strings(rs.removed)
	sort.Strings(rs.restored)
	return rs.restored, rs.removed, nil
}

// indexEntry records one entry of the snapshot.
func (rs *restorer) indexEntry(e *entry) error {
	if e.err != nil {
		return e.err
	}
	se := snapEntry{kind: e.kind()}
	if se.kind == kindLink {
		target, err := e.dir.Readlink(e.name)
		if err != nil {
			return err
		}
		if linkLeadsOut(e.rel, target) {
			return refuse(ErrSnapshot, nil, "restore: the snapshot holds %s -> %s, which may lead outside the workspace",
				e.rel, target)
		}
		se.target = target
	}
	rs.index[e.rel] = se
	return nil
}

// removeExtra deletes the workspace entry e unless the snapshot holds it
// as the same kind or skipped it, and lists the files and symlinks
// removed that the snapshot does not hold at all (one it holds as another
// kind is put back later and reported as restored). Removals go through
// the folder e was listed in, so a parent swapped meanwhile changes
// nothing outside.
func (rs *restorer) removeExtra(e *entry) error {
	if rs.skipped[e.rel] {
		return fs.SkipDir
	}
	want, known := rs.index[e.rel]
	if known && want.kind == e.kind() {
		if e.err != nil { // a folder swapped while listed: a retry sees the swap
			return fmt.Errorf("%s: %w", e.rel, e.err)
		}
		return nil
	}
	hook("remove", e.rel)
	if e.kind() == kindDir {
		// Nothing below a folder the snapshot lacks is in the snapshot.
		if e.err == nil {
			if err := walk(rs.ctx, e.sub, e.rel, rs.listRemoved); err != nil {
				return err
			}
		}
		if err := e.dir.RemoveAll(e.name); err != nil {
			return err
		}
		return fs.SkipDir
	}
	if !known {
		rs.removed = append(rs.removed, e.rel)
	}
	return e.dir.Remove(e.name)
}

// listRemoved lists e as removed unless it is a folder.
func (rs *restorer) listRemoved(e *entry) error {
	if e.kind() != kindDir {
		rs.removed = append(rs.removed, e.rel)
	}
	return nil
}

// putBack copies every entry of the snapshot folder snap (at prefix) that
// is missing from the workspace folder ws or differs, folder by folder.
func (rs *restorer) putBack(snap, ws *os.Root, prefix string) error {
	entries, err := fs.ReadDir(snap.FS(), ".")
	if err != nil {
		return err
	}
	for _, de := range entries {
		if err := rs.ctx.Err(); err != nil {
			return err
		}
		rel := path.Join(prefix, de.Name())
		want, ok := rs.index[rel]
		if !ok {
			return fmt.Errorf("%s: %w", rel, errChanged) // the snapshot changed since it was read
		}
		if rs.n++; rs.n%beatEvery == 0 && rs.beat != nil {
			rs.beat("restore", rs.n)
		}
		hook("restore", rel)
		if err := rs.putEntry(snap, ws, de, rel, want); err != nil {
			return err
		}
	}
	return nil
}

// putEntry puts back one snapshot entry de of the folder snap into ws.
func (rs *restorer) putEntry(snap, ws *os.Root, de fs.DirEntry, rel string, want snapEntry) error {
	info, err := de.Info()
	switch {
	case err != nil:
	case want.kind == kindDir:
		return rs.putDir(snap, ws, de.Name(), rel, info)
	case want.kind == kindLink:
		err = rs.putLink(ws, de.Name(), rel, want.target)
	case want.kind == kindFile:
		err = rs.putFile(snap, ws, de.Name(), rel, info)
	}
	if err != nil {
		return fmt.Errorf("%s: %w", rel, err)
	}
	return nil
}

// putDir makes name in ws a folder and puts back what the snapshot folder
// name of snap (listed as info) holds.
func (rs *restorer) putDir(snap, ws *os.Root, name, rel string, info fs.FileInfo) error {
	from, err := openDir(snap, name, info)
	if err != nil {
		return fmt.Errorf("%s: %w", rel, err)
	}
	defer from.Close()
	to, err := ensureDir(ws, name, info.Mode().Perm()|0o700)
	if err != nil {
		return fmt.Errorf("%s: %w", rel, err)
	}
	defer to.Close()
	return rs.putBack(from, to, rel)
}

// ensureDir returns the folder name of dir, created when missing, with
// permissions perm. Anything else found there was put there since the
// removals, while the restore ran: errChanged, which a retry fixes.
func ensureDir(dir *os.Root, name string, perm fs.FileMode) (*os.Root, error) {
	if err := dir.Mkdir(name, 0o700); err != nil && !errors.Is(err, fs.ErrExist) {
		return nil, err
	}
	info, err := dir.Lstat(name)
	if err != nil {
		return nil, err
	}
	if !info.IsDir() {
		return nil, errChanged
	}
	sub, err := openDir(dir, name, info)
	if err != nil {
		return nil, err
	}
	if err := chmodDir(sub, perm); err != nil {
		sub.Close()
		return nil, err
	}
	return sub, nil
}

// chmodDir sets the permissions of the open folder dir through its own
// handle.
func chmodDir(dir *os.Root, perm fs.FileMode) error {
	f, err := dir.Open(".")
	if err != nil {
		return err
	}
	defer f.Close()
	return f.Chmod(perm)
}

// putLink makes name in ws the symlink to target, through a temporary
// link and a rename.
func (rs *restorer) putLink(ws *os.Root, name, rel, target string) error {
	if got, err := ws.Readlink(name); err == nil && got == target {
		return nil
	}
	tmp := tempName()
	if err := ws.Symlink(target, tmp); err != nil {
		return err
	}
	if err := ws.Rename(tmp, name); err != nil {
		ws.Remove(tmp)
		return err
	}
	rs.restored = append(rs.restored, rel)
	return nil
}

// putFile makes name in ws a copy of the regular file name in snap
// (listed as info) unless it already is one, content and permissions.
func (rs *restorer) putFile(snap, ws *os.Root, name, rel string, info fs.FileInfo) error {
	src, fi, err := openFile(snap, name, info)
	if err != nil {
		return err
	}
	defer src.Close()
	same, err := sameFile(src, fi, ws, name)
	if err != nil || same {
		return err
	}
	if _, err := src.Seek(0, io.SeekStart); err != nil {
		return err
	}
	if err := writeAtomic(ws, name, src, fi.Mode().Perm()); err != nil {
		return err
	}
	rs.restored = append(rs.restored, rel)
	return nil
}

// sameFile reports whether name in ws is a regular file with the content
// and permissions of src (whose fstat is fi).
func sameFile(src *os.File, fi fs.FileInfo, ws *os.Root, name string) (bool, error) {
	tfi, err := ws.Lstat(name)
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	if !tfi.Mode().IsRegular() || tfi.Size() != fi.Size() || tfi.Mode().Perm() != fi.Mode().Perm() {
		return false, nil
	}
	dst, _, err := openFile(ws, name, tfi)
	if errors.Is(err, errChanged) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	defer dst.Close()
	return sameContent(src, dst)
}

// sameContent compares two readers of equal length chunk by chunk.
func sameContent(a, b io.Reader) (bool, error) {
	bufA, bufB := make([]byte, 64<<10), make([]byte, 64<<10)
	for {
		na, errA := io.ReadFull(a, bufA)
		nb, errB := io.ReadFull(b, bufB)
		if na != nb || !bytes.Equal(bufA[:na], bufB[:nb]) {
			return false, nil
		}
		if errA == io.EOF || errA == io.ErrUnexpectedEOF {
			return errB == io.EOF || errB == io.ErrUnexpectedEOF, nil
		}
		if errA != nil {
			return false, errA
		}
		if errB != nil {
			return false, errB
		}
	}
}
