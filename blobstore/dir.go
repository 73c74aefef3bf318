package blobstore

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"
	"syscall"
)

// Dir is a Store in a local folder: a key is a path below it. Every
// operation goes through an [os.Root] on the folder, so a symbolic link
// planted inside it cannot lead a read, write or removal outside.
type Dir struct {
	root *os.Root
	path string
}

// tempMark is in the name of every file Put writes before renaming it
// into place. ValidKey refuses it, so a temporary file is never a key.
const tempMark = "~put-"

// NewDir opens (creating it, 0700, when missing) the folder at the
// absolute path dir as a store.
func NewDir(dir string) (*Dir, error) {
	if !filepath.IsAbs(dir) {
		return nil, fmt.Errorf("blob store folder %q is not an absolute path", dir)
	}
	dir = filepath.Clean(dir)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("blob store folder: %w", err)
	}
	root, err := os.OpenRoot(dir)
	if err != nil {
		return nil, fmt.Errorf("blob store folder: %w", err)
	}
	return &Dir{root: root, path: dir}, nil
}

// Path is the folder the store keeps its blobs in.
func (d *Dir) Path() string { return d.path }

// Close releases the folder. The store is unusable afterwards.
func (d *Dir) Close() error { return d.root.Close() }

// Put implements Store. The blob is written to a temporary file beside
// its place and renamed into it once complete, so a reader never sees
// half a blob and a Put that fails leaves nothing.
func (d *Dir) Put(ctx context.Context, key string, r io.Reader, size int64) error {
	if err := ValidKey(key); err != nil {
		return err
	}
	p, err := d.create(key)
	if err != nil {
		return fmt.Errorf("put %s: %w", key, err)
	}
	_, err = io.Copy(p, exactly(ctx, r, size))
	if err != nil {
		p.abort()
		return fmt.Errorf("put %s: %w", key, err)
	}
	if err := p.commit(); err != nil {
		return fmt.Errorf("put %s: %w", key, err)
	}
	return nil
}

// Get implements Store.
func (d *Dir) Get(ctx context.Context, key string) (io.ReadCloser, error) {
	if err := ValidKey(key); err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	f, err := d.root.Open(key)
	if err != nil {
		return nil, fmt.Errorf("get %s: %w", key, notFound(err))
	}
	st, err := f.Stat()
	if err == nil && !st.Mode().IsRegular() {
		err = ErrNotFound
	}
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("get %s: %w", key, err)
	}
	return f, nil
}

// Stat implements Store.
func (d *Dir) Stat(ctx context.Context, key string) (Info, error) {
	if err := ValidKey(key); err != nil {
		return Info{}, err
	}
	if err := ctx.Err(); err != nil {
		return Info{}, err
	}
	st, err := d.root.Stat(key)
	if err == nil && !st.Mode().IsRegular() {
		err = ErrNotFound
	}
	if err != nil {
		return Info{}, fmt.Errorf("stat %s: %w", key, notFound(err))
	}
	return Info{Key: key, Size: st.Size(), ModTime: st.ModTime()}, nil
}

// List implements Store. It walks only the folder the prefix names (up to
// its last slash) and skips temporary files and anything that is no key.
func (d *Dir) List(ctx context.Context, prefix string, fn func(Info) error) error {
	start := "."
	if i := strings.LastIndexByte(prefix, '/'); i > 0 && fs.ValidPath(prefix[:i]) {
		start = prefix[:i]
	}
	err := fs.WalkDir(d.root.FS(), start, func(name string, e fs.DirEntry, err error) error {
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				return nil // removed while walking, or no such folder
			}
			return err
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		if e.IsDir() || !e.Type().IsRegular() || !strings.HasPrefix(name, prefix) ||
			strings.Contains(name, tempMark) || ValidKey(name) != nil {
			return nil
		}
		st, err := e.Info()
		if errors.Is(err, fs.ErrNotExist) {
			return nil
		}
		if err != nil {
			return err
		}
		return fn(Info{Key: name, Size: st.Size(), ModTime: st.ModTime()})
	})
	if err != nil {
		return fmt.Errorf("list %q: %w", prefix, err)
	}
	return nil
}

// Delete implements Store. It also removes the folders the blob leaves
// empty, as far as it can: a folder another Put has just filled stays.
func (d *Dir) Delete(ctx context.Context, key string) error {
	if err := ValidKey(key); err != nil {
		return err
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	st, err := d.root.Lstat(key)
	if errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR) {
		return nil
	}
	if err == nil && st.IsDir() {
		return nil // a folder of other blobs is no blob
	}
	if err == nil {
		err = d.root.Remove(key)
	}
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("delete %s: %w", key, err)
	}
	for dir := path.Dir(key); dir != "."; dir = path.Dir(dir) {
		if d.root.Remove(dir) != nil {
			break
		}
	}
	return nil
}

// pending is a blob being written: a temporary file that commit renames
// to its key and abort removes.
type pending struct {
	d    *Dir
	key  string
	name string
	f    *os.File
}

// create opens a new temporary file beside key, making its folders. A
// concurrent Delete may remove a folder it has just made, so it tries a
// few times.
func (d *Dir) create(key string) (*pending, error) {
	var b [8]byte
	rand.Read(b[:])
	name := path.Join(path.Dir(key), tempMark+hex.EncodeToString(b[:]))
	var err error
	for range 3 {
		if dir := path.Dir(key); dir != "." {
			if err = d.root.MkdirAll(dir, 0o700); err != nil {
				continue
			}
		}
		var f *os.File
		f, err = d.root.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
		if err == nil {
			return &pending{d: d, key: key, name: name, f: f}, nil
		}
		if !errors.Is(err, fs.ErrNotExist) {
			break
		}
	}
	return nil, err
}

func (p *pending) Write(b []byte) (int, error) { return p.f.Write(b) }

// commit makes the written bytes durable and puts them under the key.
func (p *pending) commit() error {
	err := p.f.Sync()
	if cerr := p.f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = p.d.root.Rename(p.name, p.key)
	}
	if err != nil {
		p.d.root.Remove(p.name)
	}
	return err
}

// abort drops what was written.
func (p *pending) abort() {
	p.f.Close()
	p.d.root.Remove(p.name)
}

// notFound marks a missing file as ErrNotFound, keeping its cause. A
// path through a file (key "a/b" where "a" is a blob) is no blob either.
func notFound(err error) error {
	if errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR) {
		return fmt.Errorf("%w (%w)", ErrNotFound, err)
	}
	return err
}
