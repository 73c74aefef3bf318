package workspace

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
)

// The worker walks workspaces that commands of parallel steps are changing
// at the same time, outside their sandbox. So every walk here goes through
// os.Root handles, one folder at a time: each name is looked up in a
// folder already open, never resolved again from the top, and each entry
// opened is checked (fstat) to be the one listed. An entry swapped for a
// symlink, or a folder swapped for one, can lead nowhere outside the
// workspace, and is reported as changed rather than followed.

// testHook, when a test sets it, runs as the worker reaches an entry: op
// "open" before a walk opens a folder, "snapshot" before a snapshot opens
// a file, "restore" before a restore puts an entry back, "remove" before
// it removes one. That is where a parallel command could swap the entry.
var testHook func(op, rel string)

// hook runs testHook, if set.
func hook(op, rel string) {
	if testHook != nil {
		testHook(op, rel)
	}
}

// errChanged is an entry replaced between being listed and being opened.
var errChanged = errors.New("changed while being read or written")

// entryKind is what a path is, for comparing a workspace with a snapshot.
type entryKind int

const (
	kindOther entryKind = iota
	kindDir
	kindFile
	kindLink
)

// kindOf classifies a file's type bits.
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

// entry is one entry a walk found.
type entry struct {
	rel  string      // its slash-separated path below the walk's start
	name string      // its last element
	dir  *os.Root    // the open folder it lies in
	info fs.FileInfo // its lstat when listed
	sub  *os.Root    // a folder's own handle, opened and checked; nil if err
	err  error       // why a folder could not be opened (errChanged or a fault)
}

// kind is the entry's kind when listed.
func (e *entry) kind() entryKind { return kindOf(e.info.Mode().Type()) }

// walk calls visit for every entry below dir, whose path is prefix, in
// lexical order, each folder before what it holds. It descends into every
// folder it could open (see entry.err) unless visit returns fs.SkipDir.
// An entry removed once listed is passed over.
func walk(ctx context.Context, dir *os.Root, prefix string, visit func(*entry) error) error {
	entries, err := fs.ReadDir(dir.FS(), ".")
	if err != nil {
		return fmt.Errorf("read %s: %w", path.Join(".", prefix), err)
	}
	for _, de := range entries {
		if err := ctx.Err(); err != nil {
			return err
		}
		// In a Root the entry's info was read (lstat) from the open folder.
		info, err := de.Info()
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return err
		}
		e := &entry{rel: path.Join(prefix, de.Name()), name: de.Name(), dir: dir, info: info}
		if info.IsDir() {
			hook("open", e.rel)
			e.sub, e.err = openDir(dir, e.name, info)
		}
		err = visit(e)
		if err == nil && e.sub != nil {
			err = walk(ctx, e.sub, e.rel, visit)
		}
		if e.sub != nil {
			e.sub.Close()
		}
		if err != nil && !errors.Is(err, fs.SkipDir) {
			return err
		}
	}
	return nil
}

// openDir opens the folder name of dir, listed as info, and checks it is
// still that folder. It opens "name/.": Root.OpenRoot(name) would open a
// fifo swapped in for the folder without O_DIRECTORY, and block.
func openDir(dir *os.Root, name string, info fs.FileInfo) (*os.Root, error) {
	sub, err := dir.OpenRoot(name + "/.")
	if err != nil {
		return nil, changedOr(dir, name, info, err)
	}
	now, err := sub.Stat(".")
	if err == nil && !os.SameFile(now, info) {
		err = errChanged // a symlink to another folder inside, followed
	}
	if err != nil {
		sub.Close()
		return nil, err
	}
	return sub, nil
}

// openFile opens the regular file name of dir, listed as info, for
// reading, and returns it with its fstat. It never blocks on a fifo, and a
// file swapped for anything else (a symlink Root followed, a fifo, another
// file) is errChanged.
func openFile(dir *os.Root, name string, info fs.FileInfo) (*os.File, fs.FileInfo, error) {
	f, err := dir.OpenFile(name, os.O_RDONLY|openNonblock, 0)
	if err != nil {
		return nil, nil, changedOr(dir, name, info, err)
	}
	now, err := f.Stat()
	if err == nil && (!now.Mode().IsRegular() || !os.SameFile(now, info)) {
		err = errChanged
	}
	if err != nil {
		f.Close()
		return nil, nil, err
	}
	return f, now, nil
}

// changedOr returns errChanged when name in dir is gone or no longer the
// entry info describes, err otherwise: what made an open fail.
func changedOr(dir *os.Root, name string, info fs.FileInfo, err error) error {
	now, lerr := dir.Lstat(name)
	switch {
	case errors.Is(lerr, fs.ErrNotExist):
		return errChanged
	case lerr != nil:
		return err
	case !os.SameFile(now, info) || now.Mode().Type() != info.Mode().Type():
		return errChanged
	}
	return err
}

// linkLeadsOut reports whether a symlink at rel (slash-separated, below
// the workspace) leads outside the workspace by its target's text: an
// absolute target, or one climbing above the workspace. Every symlink is
// judged so, and the worker opens workspace paths only through a Root,
// which follows no symlink out.
func linkLeadsOut(rel, target string) bool {
	if target == "" || filepath.IsAbs(target) || path.IsAbs(target) {
		return true
	}
	return climbs(path.Join(path.Dir(rel), filepath.ToSlash(target)))
}

// writeAtomic writes r to name in dir with permissions perm through a
// temporary file and a rename, so name is never half written and is
// replaced as an entry (a symlink there is replaced, not followed).
func writeAtomic(dir *os.Root, name string, r io.Reader, perm fs.FileMode) error {
	tmp, f, err := createTemp(dir)
	if err != nil {
		return err
	}
	_, err = io.Copy(f, r)
	if err == nil {
		err = f.Chmod(perm)
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = dir.Rename(tmp, name)
	}
	if err != nil {
		dir.Remove(tmp)
	}
	return err
}

// createTemp creates a new file with a random hidden name in dir.
func createTemp(dir *os.Root) (string, *os.File, error) {
	for {
		name := tempName()
		f, err := dir.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
		if errors.Is(err, fs.ErrExist) {
			continue
		}
		return name, f, err
	}
}

// tempName returns a random hidden name for a temporary entry.
func tempName() string { return ".planmode-" + rand.Text() }
