package blobstore

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"hash"
	"io"
	"path"
	"strings"
)

// Cached is a Remote store with local copies of its immutable blobs
// (keys under blobs/ and manifests/, which name their content): Get
// serves the local copy when there is one, and keeps one of what it
// reads; Put writes the remote blob, then the local copy. Other keys,
// and Stat, List and Delete, go to Remote (Delete drops the local copy
// too). A local copy is only kept whole, and, when the key's last part
// is a sha256, only when the content matches it.
type Cached struct {
	Local  *Dir
	Remote Store
}

// immutable reports whether key names content that never changes.
func immutable(key string) bool {
	return strings.HasPrefix(key, "blobs/") || strings.HasPrefix(key, "manifests/")
}

// Put implements Store. The local copy is made as the remote store
// reads the blob, and kept once the remote Put succeeded; failing to
// keep it fails nothing.
func (c *Cached) Put(ctx context.Context, key string, r io.Reader, size int64) error {
	if !immutable(key) {
		return c.Remote.Put(ctx, key, r, size)
	}
	if err := ValidKey(key); err != nil {
		return err
	}
	cp := c.keep(key)
	if cp == nil {
		return c.Remote.Put(ctx, key, r, size)
	}
	if err := c.Remote.Put(ctx, key, io.TeeReader(r, cp), size); err != nil {
		cp.drop()
		return err
	}
	cp.finish(size)
	return nil
}

// Get implements Store.
func (c *Cached) Get(ctx context.Context, key string) (io.ReadCloser, error) {
	if !immutable(key) {
		return c.Remote.Get(ctx, key)
	}
	if rc, err := c.Local.Get(ctx, key); err == nil {
		if want, ok := keyHash(key); ok {
			// A local copy a failing disk changed is dropped when read
			// through, so the next read takes the remote one.
			return &checkedCopy{rc: rc, h: sha256.New(), want: want, drop: func() { _ = c.Local.Delete(ctx, key) }}, nil
		}
		return rc, nil
	}
	rc, err := c.Remote.Get(ctx, key)
	if err != nil {
		return nil, err
	}
	cp := c.keep(key)
	if cp == nil {
		return rc, nil
	}
	return &keepingReader{rc: rc, cp: cp}, nil
}

// Stat implements Store.
func (c *Cached) Stat(ctx context.Context, key string) (Info, error) {
	return c.Remote.Stat(ctx, key)
}

// List implements Store.
func (c *Cached) List(ctx context.Context, prefix string, fn func(Info) error) error {
	return c.Remote.List(ctx, prefix, fn)
}

// Delete implements Store.
func (c *Cached) Delete(ctx context.Context, key string) error {
	if err := c.Remote.Delete(ctx, key); err != nil {
		return err
	}
	if !immutable(key) {
		return nil
	}
	if err := c.Local.Delete(ctx, key); err != nil {
		return fmt.Errorf("drop local copy: %w", err)
	}
	return nil
}

// keep starts a local copy of key, or returns nil when it cannot (the
// local folder is a cache: the remote store is what counts).
func (c *Cached) keep(key string) *localCopy {
	p, err := c.Local.create(key)
	if err != nil {
		return nil
	}
	cp := &localCopy{p: p}
	if want, ok := keyHash(key); ok {
		cp.want, cp.h = want, sha256.New()
	}
	return cp
}

// keyHash returns the sha256 the last part of key names, if it names one.
func keyHash(key string) ([]byte, bool) {
	want, err := hex.DecodeString(path.Base(key))
	return want, err == nil && len(want) == sha256.Size
}

// checkedCopy reads a local copy whose key names its sha256: at its end a
// content that does not match is an error, and the copy is dropped.
type checkedCopy struct {
	rc   io.ReadCloser
	h    hash.Hash
	want []byte
	drop func()
}

func (c *checkedCopy) Read(p []byte) (int, error) {
	n, err := c.rc.Read(p)
	c.h.Write(p[:n])
	if err == io.EOF && string(c.h.Sum(nil)) != string(c.want) {
		c.drop()
		return n, fmt.Errorf("the local copy of a blob did not match its hash and was dropped: %w", ErrUnavailable)
	}
	return n, err
}

func (c *checkedCopy) Close() error { return c.rc.Close() }

// localCopy is a local copy being written. A failed write only spoils
// the copy, never the transfer it rides on.
type localCopy struct {
	p      *pending
	n      int64
	h      hash.Hash // nil when the key names no sha256
	want   []byte
	failed bool
}

func (cp *localCopy) Write(b []byte) (int, error) {
	if !cp.failed {
		if _, err := cp.p.Write(b); err != nil {
			cp.failed = true
		}
		if cp.h != nil {
			cp.h.Write(b)
		}
		cp.n += int64(len(b))
	}
	return len(b), nil
}

// finish keeps the copy when it is whole: size bytes (size < 0: any),
// matching the hash its key names.
func (cp *localCopy) finish(size int64) {
	if cp.failed || (size >= 0 && cp.n != size) || (cp.h != nil && string(cp.h.Sum(nil)) != string(cp.want)) {
		cp.drop()
		return
	}
	cp.p.commit()
}

func (cp *localCopy) drop() { cp.p.abort() }

// keepingReader streams a remote blob and keeps a local copy of it once
// it was read to its end without error; anything less keeps nothing.
type keepingReader struct {
	rc   io.ReadCloser
	cp   *localCopy
	done bool
}

func (k *keepingReader) Read(b []byte) (int, error) {
	n, err := k.rc.Read(b)
	if !k.done {
		k.cp.Write(b[:n])
		switch {
		case err == io.EOF:
			k.done = true
			k.cp.finish(-1)
		case err != nil:
			k.done = true
			k.cp.drop()
		}
	}
	return n, err
}

func (k *keepingReader) Close() error {
	if !k.done {
		k.done = true
		k.cp.drop()
	}
	return k.rc.Close()
}
