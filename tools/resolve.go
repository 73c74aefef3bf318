package tools

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
)

// maxLinks bounds the symlinks one path may go through, as the kernel's
// own limit does, so a loop of links ends.
const maxLinks = 40

// local maps p, a path as the model wrote it, to a clean name relative to
// the root ("." for the root itself), without looking at the disk beyond
// the root's own name. It refuses a NUL byte, a path that leaves through
// "..", and an absolute path outside the root.
func (s *Sandbox) local(p string) (string, error) {
	if strings.ContainsRune(p, 0) {
		return "", rejectPath(p, "contains a NUL byte")
	}
	if filepath.IsAbs(p) {
		rel, ok := s.relOf(p)
		if !ok {
			return "", rejectPath(p, "is outside the workspace %s", s.root)
		}
		return rel, nil
	}
	rel := filepath.Clean(filepath.FromSlash(p))
	if !filepath.IsLocal(rel) && rel != "." {
		return "", rejectPath(p, "leaves the workspace")
	}
	return rel, nil
}

// relOf returns the absolute path abs relative to the root, when it lies
// inside. A root named through a symlink (/srv/link/ws) counts as the
// root: the symlinks of abs's deepest existing ancestor are resolved to
// find out. The answer is only a name; every access through it goes
// through the root all the same.
func (s *Sandbox) relOf(abs string) (string, bool) {
	abs = filepath.Clean(abs)
	if !Within(s.root, abs) {
		real, ok := realAncestor(abs)
		if !ok || !Within(s.root, real) {
			return "", false
		}
		abs = real
	}
	rel, err := filepath.Rel(s.root, abs)
	return rel, err == nil
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

// resolve returns the name, relative to the root and free of symlinks,
// that the workspace path p leads to through r: each symlink on the way,
// the last component's too when final is set, is replaced by its target.
// A relative target is followed when it stays inside, an absolute one when
// it names a place inside the root ([os.Root] refuses every absolute
// target, so such links are followed here). Components from the first
// missing one on are kept as they are. A link leading out is refused with
// a [*ToolError] wrapping a [*PathError].
//
// The name is for opening through r and for messages and file changes:
// it is no promise. A process may swap a component for a symlink once it
// is returned; r still refuses to follow one out of the root.
func (s *Sandbox) resolve(r *os.Root, p string, final bool) (string, error) {
	name, err := s.local(p)
	if err != nil {
		return "", err
	}
	var done []string
	todo := components(name)
	for links := 0; len(todo) > 0; {
		c := todo[0]
		todo = todo[1:]
		if c == ".." {
			if len(done) == 0 {
				return "", rejectPath(p, "leads outside the workspace")
			}
			done = done[:len(done)-1]
			continue
		}
		cur := filepath.Join(append(done, c)...)
		fi, err := r.Lstat(cur)
		switch {
		case errors.Is(err, fs.ErrNotExist):
			return join(append(append(done, c), todo...)), nil
		case err != nil:
			return "", fileErr("resolve", p, err)
		case fi.Mode()&fs.ModeSymlink == 0 || (len(todo) == 0 && !final):
			done = append(done, c)
			continue
		}
		if links++; links > maxLinks {
			return "", rejectPath(p, "goes through more than %d symlinks", maxLinks)
		}
		beforeReadlink(cur)
		target, err := r.Readlink(cur)
		if errors.Is(err, syscall.EINVAL) || errors.Is(err, fs.ErrNotExist) {
			// Swapped for a file or removed since the Lstat: look at
			// the name again (the link bound keeps this from looping).
			todo = append([]string{c}, todo...)
			continue
		}
		if err != nil {
			return "", fileErr("resolve", p, err)
		}
		if filepath.IsAbs(target) {
			rel, ok := s.relOf(target)
			if !ok {
				return "", rejectPath(p, "goes through the symlink %s to %s, outside the workspace",
					filepath.ToSlash(cur), target)
			}
			done = nil
			target = rel
		}
		todo = append(components(filepath.Clean(target)), todo...)
	}
	return join(done), nil
}

// join joins name components; none is the root, ".".
func join(parts []string) string {
	if len(parts) == 0 {
		return "."
	}
	return filepath.Join(parts...)
}

// components splits a clean relative name; "." has none.
func components(name string) []string {
	if name == "." || name == "" {
		return nil
	}
	return strings.Split(name, string(filepath.Separator))
}
