package tools

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// Sandbox confines file access to one workspace root. Paths given to it are
// relative to the root, or absolute inside it; everything else is refused,
// including paths that reach outside through a symlink.
//
// Every access goes through an [os.Root] opened on the workspace: the
// kernel resolves each component of a name relative to the root's
// descriptor, and a symlink or ".." that would lead out fails the access
// itself. A process racing a tool (a command of a parallel step swapping
// a name for a symlink between the tool's look at it and its use) gains
// nothing: there is no check by name that a later open trusts. Symlinks
// that stay inside are followed, absolute ones naming a place inside the
// root too; writes replace a file by renaming a new one over it, so they
// never write into a file a symlink or hard link swapped in leads to.
//
// A Sandbox holds no descriptor: each operation opens the root and closes
// it again, so a Sandbox needs no closing.
type Sandbox struct {
	root string
}

// NewSandbox returns a sandbox rooted at root, which must be an existing
// directory. The root is made absolute and its own symlinks resolved.
func NewSandbox(root string) (*Sandbox, error) {
	if root == "" {
		return nil, errors.New("new sandbox: empty workspace root")
	}
	abs, err := filepath.Abs(root)
	if err != nil {
		return nil, fmt.Errorf("new sandbox: %w", err)
	}
	real, err := filepath.EvalSymlinks(abs)
	if err != nil {
		return nil, fmt.Errorf("new sandbox: workspace root: %w", err)
	}
	fi, err := os.Stat(real)
	if err != nil {
		return nil, fmt.Errorf("new sandbox: workspace root: %w", err)
	}
	if !fi.IsDir() {
		return nil, fmt.Errorf("new sandbox: workspace root %s is not a directory", real)
	}
	return &Sandbox{root: real}, nil
}

// Root returns the absolute, symlink-free workspace root.
func (s *Sandbox) Root() string { return s.root }

// Rel returns abs relative to the root with forward slashes, for messages
// and file changes; "." for the root itself.
func (s *Sandbox) Rel(abs string) string {
	rel, err := filepath.Rel(s.root, abs)
	if err != nil {
		return abs
	}
	return filepath.ToSlash(rel)
}

// open opens the workspace root for one operation; the caller closes it.
// Failing to open it is a fault of the worker, not of the tool call.
func (s *Sandbox) open() (*os.Root, error) {
	r, err := os.OpenRoot(s.root)
	if err != nil {
		return nil, fmt.Errorf("open workspace root: %w", err)
	}
	return r, nil
}

// ReadFile reads the file at p, refusing files larger than max bytes
// (DefaultMaxReadBytes when max <= 0), anything that is not a regular file
// and a file with more than one hard link. Failures are [*ToolError]s.
func (s *Sandbox) ReadFile(p string, max int64) ([]byte, error) {
	if max <= 0 {
		max = DefaultMaxReadBytes
	}
	r, err := s.open()
	if err != nil {
		return nil, err
	}
	defer r.Close()
	name, err := s.resolve(r, p, true)
	if err != nil {
		return nil, err
	}
	return readRegular(r, name, p, max)
}

// readRegular reads the regular file name of r, called p in messages, up
// to max bytes. It refuses a larger file, anything but a regular file and
// a file with more than one hard link. Failures are [*ToolError]s.
func readRegular(r *os.Root, name, p string, max int64) ([]byte, error) {
	f, fi, err := openRegular(r, name, p, "read")
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if fi.Size() > max {
		return nil, Failf("read %s: file is %d bytes, over the %d-byte read limit", p, fi.Size(), max)
	}
	data, err := io.ReadAll(io.LimitReader(f, max+1))
	if err != nil {
		return nil, Failf("read %s: %w", p, cleanPathErr(err))
	}
	if int64(len(data)) > max {
		return nil, Failf("read %s: file grew over the %d-byte read limit", p, max)
	}
	return data, nil
}

// openRegular opens name in r for reading and returns it with what fstat
// says of it, refusing anything but a regular file with one hard link.
// Every check runs on the opened file, never on a name another process
// could swap after the check. The open does not block, so a named pipe
// or a device swapped in is refused rather than waited on.
//
// A hard link is one more name of the same file, and nothing leads from a
// file to its other names, so a link inside the workspace may be the only
// name we see of a file outside it (a secret the worker can read).
// Symlinks can be followed to see where they lead; hard links cannot, so
// they are refused. Failures are [*ToolError]s naming the file p, for op.
func openRegular(r *os.Root, name, p, op string) (*os.File, fs.FileInfo, error) {
	afterResolve(name)
	f, err := r.OpenFile(name, os.O_RDONLY|openNonblock, 0)
	if err != nil {
		return nil, nil, fileErr(op, p, err)
	}
	fi, err := f.Stat()
	if err == nil && !fi.Mode().IsRegular() {
		err = Failf("%s %s: not a regular file", op, p)
	}
	if err == nil {
		err = refuseHardLinks(op, p, fi)
	}
	if err != nil {
		f.Close()
		return nil, nil, fileErr(op, p, err)
	}
	return f, fi, nil
}

// refuseHardLinks returns a [*ToolError] when the regular file fi has more
// than one hard link (see openRegular for why).
func refuseHardLinks(op, p string, fi fs.FileInfo) error {
	if n := linkCount(fi); n > 1 {
		return Failf("%s %s: the file has %d hard links; a file with more than one name is neither read nor "+
			"written, since its other names may lie outside the workspace (replace it with a copy to use it)", op, p, n)
	}
	return nil
}

// fileErr turns the failure of op on the workspace path p into a
// [*ToolError]: a refusal when the root refused a name leading out of it
// (a symlink swapped in while the tool ran), else the failure itself
// without the absolute path.
func fileErr(op, p string, err error) error {
	if IsToolError(err) {
		return err
	}
	if escapes(err) {
		return rejectPath(p, "leads outside the workspace")
	}
	return Failf("%s %s: %w", op, p, cleanPathErr(err))
}

// escapes reports whether err is an [os.Root] refusing a name that leads
// out of it. The os package does not export that error, only its text.
func escapes(err error) bool {
	var pe *fs.PathError
	return errors.As(err, &pe) && pe.Err.Error() == "path escapes from parent"
}

// testHookAfterResolve, when a test sets it, runs between the resolution
// of a workspace name and its use, where a racing process could swap it.
var testHookAfterResolve func(name string)

func afterResolve(name string) {
	if h := testHookAfterResolve; h != nil {
		h(filepath.ToSlash(name))
	}
}

// testHookBeforeReadlink, when a test sets it, runs between resolve's
// Lstat of a name that was a symlink and its Readlink.
var testHookBeforeReadlink func(name string)

func beforeReadlink(name string) {
	if h := testHookBeforeReadlink; h != nil {
		h(filepath.ToSlash(name))
	}
}

// Within reports whether the clean absolute path p is root or lies below
// it: the containment check of workspaces under a workspace root, and of
// absolute paths the model names.
func Within(root, p string) bool {
	if p == root {
		return true
	}
	if !strings.HasSuffix(root, string(filepath.Separator)) {
		root += string(filepath.Separator)
	}
	return strings.HasPrefix(p, root)
}

// cleanPathErr drops the absolute path from an *fs.PathError so messages
// speak of workspace paths only.
func cleanPathErr(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}
