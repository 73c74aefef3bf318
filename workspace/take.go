package workspace

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
)

// Why a snapshot leaves an entry out (see Skip).
const (
	skipChanged = "changed while the snapshot was taken"
	skipSpecial = "not a regular file, folder or symlink"
	skipLinkOut = "a symlink that may lead outside the workspace (absolute, or climbing above it)"
	skipLinks   = "a file with %d hard links: another of its names may lie outside the workspace"
)

// takeSnapshot copies the workspace src into store/id through a
// temporary folder, replacing an earlier copy, and writes the manifest m,
// filling in what was copied and skipped.
func takeSnapshot(ctx context.Context, src, store *os.Root, id string, m *snapshotManifest, limit int64,
	beat func(...any)) error {
	tmp := "." + id + "-" + tempName()[1:] // hidden: pruned as a leftover if left
	if err := store.Mkdir(tmp, 0o700); err != nil {
		return fmt.Errorf("snapshot %s: %w", id, err)
	}
	defer store.RemoveAll(tmp) // gone after the rename; cleans up a failure
	dst, err := store.OpenRoot(tmp)
	if err != nil {
		return fmt.Errorf("snapshot %s: %w", id, err)
	}
	defer dst.Close()
	c := &copier{dst: dst, m: m, limit: limit, beat: beat}
	if err := walk(ctx, src, "", c.visit); err != nil {
		if errors.Is(err, errOverLimit) {
			return refuse(ErrSnapshot, nil, "workspace %s is over the %d MiB snapshot limit", m.Workspace, limit>>20)
		}
		return fmt.Errorf("snapshot %s: %w", id, err)
	}
	if err := store.RemoveAll(id); err != nil {
		return fmt.Errorf("snapshot %s: replace the earlier copy: %w", id, err)
	}
	if err := store.Rename(tmp, id); err != nil {
		return fmt.Errorf("snapshot %s: %w", id, err)
	}
	if err := writeManifest(store, id, m); err != nil {
		return fmt.Errorf("snapshot %s: manifest: %w", id, err)
	}
	return nil
}

// copier copies the entries a walk of the workspace finds into dst.
type copier struct {
	dst   *os.Root
	m     *snapshotManifest
	limit int64
	beat  func(...any)
	n     int
}

// errOverLimit stops a copy that went over the snapshot limit.
var errOverLimit = errors.New("over the snapshot limit")

// visit copies one entry: a folder, a symlink (as a symlink) or a regular
// file, or records why it is left out.
func (c *copier) visit(e *entry) error {
	if c.n++; c.n%beatEvery == 0 && c.beat != nil {
		c.beat("snapshot", c.n)
	}
	switch e.kind() {
	case kindDir:
		if e.err != nil {
			return c.skipOr(e, e.err)
		}
		if err := c.dst.Mkdir(e.rel, 0o700); err != nil {
			return err
		}
		// The owner keeps access, so that the copy can be filled and pruned.
		return c.dst.Chmod(e.rel, e.info.Mode().Perm()|0o700)
	case kindLink:
		return c.copyLink(e)
	case kindFile:
		hook("snapshot", e.rel)
		return c.copyFile(e)
	}
	c.skip(e, skipSpecial)
	return nil
}

// copyLink recreates the symlink e in the copy, unless it leads outside.
func (c *copier) copyLink(e *entry) error {
	target, err := e.dir.Readlink(e.name)
	if err != nil {
		return c.skipOr(e, changedOr(e.dir, e.name, e.info, err))
	}
	if linkLeadsOut(e.rel, target) {
		c.skip(e, skipLinkOut)
		return nil
	}
	if err := c.dst.Symlink(target, e.rel); err != nil {
		return err
	}
	c.m.Files++
	return nil
}

// copyFile copies the regular file e with its permissions, unless it has
// other names (hard links), counting its bytes against the limit.
func (c *copier) copyFile(e *entry) error {
	in, fi, err := openFile(e.dir, e.name, e.info)
	if err != nil {
		return c.skipOr(e, err)
	}
	defer in.Close()
	if n := linkCount(fi); n > 1 {
		c.skip(e, fmt.Sprintf(skipLinks, n))
		return nil
	}
	out, err := c.dst.OpenFile(e.rel, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return err
	}
	n, err := io.Copy(out, io.LimitReader(in, c.limit-c.m.Bytes+1))
	c.m.Bytes += n
	if err == nil {
		err = out.Chmod(fi.Mode().Perm())
	}
	if cerr := out.Close(); err == nil {
		err = cerr
	}
	if err == nil && c.m.Bytes > c.limit {
		err = errOverLimit
	}
	if err != nil {
		return err
	}
	c.m.Files++
	return nil
}

// skipOr records e as skipped when err says it changed once listed, and
// returns err otherwise.
func (c *copier) skipOr(e *entry, err error) error {
	if !errors.Is(err, errChanged) {
		return err
	}
	c.skip(e, skipChanged)
	return nil
}

// skip records e as left out for reason.
func (c *copier) skip(e *entry, reason string) {
	c.m.Skipped = append(c.m.Skipped, Skip{Path: e.rel, Reason: reason})
}
