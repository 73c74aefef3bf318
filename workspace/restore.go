package workspace

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
)

// entryKind is what a path is, for comparing a workspace with a snapshot.
type entryKind int

const (
	kindOther entryKind = iota
	kindDir
	kindFile
	kindLink
)

// kindOf classifies a directory entry's type bits.
func kindOf(t fs.FileMode) entryKind {
	switch {
	case t.IsDir():
		return kindDir
	case t&fs.ModeSymlink != 0:
		return kindLink
	case t.IsRegular():
		return kindFile
	}
	return kindOther
}

// restoreTree makes ws equal to the snapshot tree snap. First it removes
// what the snapshot lacks (or holds as another kind of entry), then it puts
// back every file and symlink that is missing or differs.
func restoreTree(ctx context.Context, snap, ws string, beat func(...any)) (restored, removed []string, err error) {
	index, err := indexTree(ctx, snap)
	if err != nil {
		return nil, nil, fmt.Errorf("restore: read snapshot: %w", err)
	}
	removed, err = removeExtras(ctx, ws, index)
	if err != nil {
		return nil, nil, fmt.Errorf("restore: remove new files: %w", err)
	}
	restored, err = putBack(ctx, snap, ws, beat)
	if err != nil {
		return nil, nil, fmt.Errorf("restore: put files back: %w", err)
	}
	sort.Strings(removed)
	sort.Strings(restored)
	return restored, removed, nil
}

// indexTree maps every path below root (slash-separated, relative) to its
// kind.
func indexTree(ctx context.Context, root string) (map[string]entryKind, error) {
	index := map[string]entryKind{}
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		rel, err := filepath.Rel(root, p)
		if err != nil {
			return err
		}
		index[filepath.ToSlash(rel)] = kindOf(d.Type())
		return nil
	})
	return index, err
}

// removeExtras deletes from ws every entry the snapshot does not hold as
// the same kind, and returns the files and symlinks removed that the
// snapshot does not hold at all (one it holds as another kind is put back
// later and reported as restored).
func removeExtras(ctx context.Context, ws string, index map[string]entryKind) ([]string, error) {
	removed := []string{}
	err := filepath.WalkDir(ws, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		rel, err := filepath.Rel(ws, p)
		if err != nil || rel == "." {
			return err
		}
		rel = filepath.ToSlash(rel)
		kind, known := index[rel]
		if known && kind == kindOf(d.Type()) {
			return nil
		}
		if d.IsDir() {
			// Nothing below a directory the snapshot lacks is in the snapshot.
			files, err := filesUnder(ws, p)
			if err != nil {
				return err
			}
			removed = append(removed, files...)
			if err := os.RemoveAll(p); err != nil {
				return err
			}
			return filepath.SkipDir
		}
		if !known {
			removed = append(removed, rel)
		}
		return os.Remove(p)
	})
	return removed, err
}

// filesUnder lists the non-directory entries below dir, relative to ws.
func filesUnder(ws, dir string) ([]string, error) {
	var out []string
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, err := filepath.Rel(ws, p)
		out = append(out, filepath.ToSlash(rel))
		return err
	})
	return out, err
}

// putBack copies every snapshot entry that is missing from ws or differs,
// and returns the files and symlinks it wrote.
func putBack(ctx context.Context, snap, ws string, beat func(...any)) ([]string, error) {
	restored := []string{}
	n := 0
	err := filepath.WalkDir(snap, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		rel, err := filepath.Rel(snap, p)
		if err != nil {
			return err
		}
		target := filepath.Join(ws, rel)
		if n++; n%beatEvery == 0 && beat != nil {
			beat("restore", n)
		}
		changed, err := restoreEntry(p, target, kindOf(d.Type()))
		if changed {
			restored = append(restored, filepath.ToSlash(rel))
		}
		return err
	})
	return restored, err
}

// restoreEntry makes target equal to the snapshot entry src and reports
// whether a file or symlink had to be written.
func restoreEntry(src, target string, kind entryKind) (bool, error) {
	switch kind {
	case kindDir:
		return false, mkdirLike(src, target)
	case kindLink:
		want, err := os.Readlink(src)
		if err != nil {
			return false, err
		}
		if got, err := os.Readlink(target); err == nil && got == want {
			return false, nil
		}
		if err := os.Remove(target); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return false, err
		}
		return true, os.Symlink(want, target)
	case kindFile:
		same, err := sameFile(src, target)
		if err != nil || same {
			return false, err
		}
		return true, copyFile(src, target)
	}
	return false, nil
}

// sameFile reports whether target exists with the content and permissions
// of src.
func sameFile(src, target string) (bool, error) {
	sfi, err := os.Stat(src)
	if err != nil {
		return false, err
	}
	tfi, err := os.Lstat(target)
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	if !tfi.Mode().IsRegular() || tfi.Size() != sfi.Size() || tfi.Mode().Perm() != sfi.Mode().Perm() {
		return false, nil
	}
	return sameContent(src, target)
}

// sameContent compares two files of equal size chunk by chunk.
func sameContent(a, b string) (bool, error) {
	fa, err := os.Open(a)
	if err != nil {
		return false, err
	}
	defer fa.Close()
	fb, err := os.Open(b)
	if err != nil {
		return false, err
	}
	defer fb.Close()
	bufA, bufB := make([]byte, 64<<10), make([]byte, 64<<10)
	for {
		na, errA := io.ReadFull(fa, bufA)
		nb, errB := io.ReadFull(fb, bufB)
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
