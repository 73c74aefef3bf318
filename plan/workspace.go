package plan

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"path"
	"regexp"
	"strings"
)

// Bounds of a plan's default workspace folder name.
const (
	// MaxWorkspaceNameBytes bounds the part of a default workspace name
	// taken from the plan's id; the hash suffix comes on top.
	MaxWorkspaceNameBytes = 64
	// workspaceHashHex is how many hex digits of the id's SHA-256 a
	// default workspace name carries when the id had to be changed.
	workspaceHashHex = 16
	// MaxWorkspaceKeyBytes bounds a workspace key (see ValidWorkspaceKey).
	MaxWorkspaceKeyBytes = 4 << 10
)

// hashedName matches a name that ends as DefaultWorkspace's changed names
// do, so that an id spelt like one is changed too and cannot take another
// plan's folder.
var hashedName = regexp.MustCompile(`-[0-9a-f]{16}$`)

// DefaultWorkspace returns the folder a plan that names no workspace works
// in, relative to the worker's workspace root: one path element derived
// from the plan's (workflow) id. Characters outside [A-Za-z0-9._-] become
// "_", the name is cut to MaxWorkspaceNameBytes, and a name that had to be
// changed, is made of dots only, or already ends like a changed one gets
// "-" and 16 hex digits of the id's SHA-256, so two ids never share a
// folder (short of a hash collision). It is never "", "." or "..".
func DefaultWorkspace(id string) string {
	var b strings.Builder
	changed := false
	for _, r := range id {
		if b.Len() >= MaxWorkspaceNameBytes {
			changed = true
			break
		}
		if r < 0x80 && (r == '.' || r == '_' || r == '-' || isAlnum(byte(r))) {
			b.WriteRune(r)
			continue
		}
		b.WriteByte('_')
		changed = true
	}
	name := b.String()
	if strings.Trim(name, ".") == "" {
		name, changed = "plan"+name, true
	}
	if !changed && !hashedName.MatchString(name) {
		return name
	}
	sum := sha256.Sum256([]byte(id))
	return name + "-" + hex.EncodeToString(sum[:])[:workspaceHashHex]
}

// isAlnum reports whether c is an ASCII letter or digit.
func isAlnum(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}

// WorkspacesOverlap reports whether the workspaces keyed a and b (see
// ValidWorkspaceKey) share files: they are the same folder, or one lies
// inside the other. An empty key stands for the whole root, which holds
// every workspace.
func WorkspacesOverlap(a, b string) bool {
	if a == "" || b == "" {
		return true
	}
	a, b = path.Clean(a), path.Clean(b)
	return a == b || within(a, b) || within(b, a)
}

// within reports whether the clean path inner lies below outer.
func within(outer, inner string) bool {
	if outer == "/" {
		return strings.HasPrefix(inner, "/")
	}
	return strings.HasPrefix(inner, outer+"/")
}

// ErrWorkspaceKey is the kind of every error ValidWorkspaceKey returns.
var ErrWorkspaceKey = errors.New("invalid workspace key")

// ValidWorkspaceKey checks a workspace key: the workspace's path relative
// to the workspace root, slash-separated and clean ("a", "team/shop"), or
// its absolute path on a worker without a root. The root itself (".",
// "/"), a path leaving the root (".."), an unclean or empty path, and one
// longer than MaxWorkspaceKeyBytes are refused: a lease on any of them
// would not say which files it holds.
func ValidWorkspaceKey(key string) error {
	switch {
	case key == "":
		return fmt.Errorf("%w: empty", ErrWorkspaceKey)
	case len(key) > MaxWorkspaceKeyBytes:
		return fmt.Errorf("%w: %d bytes, at most %d", ErrWorkspaceKey, len(key), MaxWorkspaceKeyBytes)
	case strings.ContainsRune(key, 0) || strings.Contains(key, `\`):
		return fmt.Errorf("%w: %q holds a NUL or a backslash", ErrWorkspaceKey, key)
	case path.Clean(key) != key:
		return fmt.Errorf("%w: %q is not a clean path (%q)", ErrWorkspaceKey, key, path.Clean(key))
	case key == "." || key == "/":
		return fmt.Errorf("%w: %q is the whole workspace root, which holds every plan's workspace", ErrWorkspaceKey, key)
	case key == ".." || strings.HasPrefix(key, "../"):
		return fmt.Errorf("%w: %q leaves the workspace root", ErrWorkspaceKey, key)
	}
	return nil
}
