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
// relative to the root, or absolute inside it; Resolve refuses everything
// else, including paths that reach outside through a symlink.
//
// The checks run before each access; a process racing the tool to swap a
// directory for a symlink between the check and the access is outside what
// the sandbox defends against. Only a command running at the same time
// (a parallel step's) could mount that race: in the command sandbox every
// process a command started dies when it ends.
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

// Resolve returns the absolute path of p inside the workspace. An empty p or
// "." is the root. It returns a [*ToolError] wrapping a [*PathError] when p
// holds a NUL byte, leaves the workspace through "..", is absolute outside
// the root, or resolves through a symlink to a place outside the root. The
// symlink check runs on the deepest existing ancestor, so a new file under a
// symlinked directory that points outside is refused too.
func (s *Sandbox) Resolve(p string) (string, error) {
	if strings.ContainsRune(p, 0) {
		return "", rejectPath(p, "contains a NUL byte")
	}
	var abs string
	if filepath.IsAbs(p) {
		abs = filepath.Clean(p)
		if !Within(s.root, abs) {
			// The root may have been named through a symlink (/srv/link/ws).
			real, ok := realAncestor(abs)
			if !ok || !Within(s.root, real) {
				return "", rejectPath(p, "is outside the workspace %s", s.root)
			}
			abs = real
		}
	} else {
		rel := filepath.Clean(filepath.FromSlash(p))
		if rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
			return "", rejectPath(p, "leaves the workspace")
		}
		abs = filepath.Join(s.root, rel)
	}
	if err := s.checkLinks(p, abs); err != nil {
		return "", err
	}
	return abs, nil
}

// checkLinks resolves the symlinks of abs's deepest existing ancestor and
// refuses the path when they lead outside the root.
func (s *Sandbox) checkLinks(p, abs string) error {
	for cur := abs; ; cur = filepath.Dir(cur) {
		real, err := filepath.EvalSymlinks(cur)
		if err == nil {
			if !Within(s.root, real) {
				return rejectPath(p, "resolves through a symlink to %s, outside the workspace", real)
			}
			return nil
		}
		if fi, lerr := os.Lstat(cur); lerr == nil {
			if fi.Mode()&fs.ModeSymlink != 0 {
				return rejectPath(p, "goes through the symlink %s whose target does not exist", s.Rel(cur))
			}
			return &ToolError{Err: fmt.Errorf("resolve %q: %w", p, err)}
		}
		if cur == s.root || cur == filepath.Dir(cur) {
			return nil
		}
	}
}

// realAncestor resolves the symlinks of abs's deepest existing ancestor
// and appends the missing rest.
func realAncestor(abs string) (string, bool) {
	rest := ""
	for cur := abs; ; cur = filepath.Dir(cur) {
		if real, err := filepath.EvalSymlinks(cur); err == nil {
			return filepath.Join(real, rest), true
		}
		if cur == filepath.Dir(cur) {
			return "", false
		}
		rest = filepath.Join(filepath.Base(cur), rest)
	}
}

// Rel returns abs relative to the root with forward slashes, for messages
// and file changes; "." for the root itself.
func (s *Sandbox) Rel(abs string) string {
	rel, err := filepath.Rel(s.root, abs)
	if err != nil {
		return abs
	}
	return filepath.ToSlash(rel)
}

// ReadFile reads the file at p, refusing files larger than max bytes
// (DefaultMaxReadBytes when max <= 0), anything that is not a regular file
// and a file with more than one hard link. Failures are [*ToolError]s.
func (s *Sandbox) ReadFile(p string, max int64) ([]byte, error) {
	if max <= 0 {
		max = DefaultMaxReadBytes
	}
	abs, err := s.Resolve(p)
	if err != nil {
		return nil, err
	}
	return readRegular(abs, p, max)
}

// readRegular reads the regular file abs, named p in messages, up to max
// bytes. It refuses a larger file, anything but a regular file and a file
// with more than one hard link: a hard link is one more name of the same
// file, and nothing leads from a file to its other names, so a link inside
// the workspace may be the only name we see of a file outside it (a
// secret the worker can read). Symlinks can be followed to check where they
// lead; hard links cannot, so they are refused. Failures are [*ToolError]s.
func readRegular(abs, p string, max int64) ([]byte, error) {
	// Check before opening: opening a named pipe blocks until a writer
	// comes, which would hang the tool past its cancellation.
	if fi, err := os.Stat(abs); err != nil {
		return nil, Failf("read %s: %w", p, cleanPathErr(err))
	} else if !fi.Mode().IsRegular() {
		return nil, Failf("read %s: not a regular file", p)
	}
	f, err := os.Open(abs)
	if err != nil {
		return nil, Failf("read %s: %w", p, cleanPathErr(err))
	}
	defer f.Close()
	// The checks that matter run on the opened file, so that a name
	// swapped after the Stat above changes nothing.
	fi, err := f.Stat()
	if err != nil {
		return nil, Failf("read %s: %w", p, cleanPathErr(err))
	}
	if !fi.Mode().IsRegular() {
		return nil, Failf("read %s: not a regular file", p)
	}
	if err := refuseHardLinks("read", p, fi); err != nil {
		return nil, err
	}
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

// refuseHardLinks returns a [*ToolError] when the regular file fi has more
// than one hard link (see readRegular for why).
func refuseHardLinks(op, p string, fi fs.FileInfo) error {
	if n := linkCount(fi); n > 1 {
		return Failf("%s %s: the file has %d hard links; a file with more than one name is neither read nor "+
			"written, since its other names may lie outside the workspace (replace it with a copy to use it)", op, p, n)
	}
	return nil
}

// Within reports whether the clean absolute path p is root or lies below
// it: the containment check of the sandbox and of workspaces under a
// workspace root.
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
