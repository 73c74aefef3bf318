package tools

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// resolve is Sandbox.resolve with its own root, following the last
// component.
func resolve(t *testing.T, sb *Sandbox, p string) (string, error) {
	t.Helper()
	r, err := sb.open()
	require.NoError(t, err)
	defer r.Close()
	return sb.resolve(r, p, true)
}

func TestSandboxResolve(t *testing.T) {
	sb := newWorkspace(t, map[string]string{"a/b.txt": "b", "inside.txt": "in"})
	outside := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(outside, "secret"), []byte("s"), 0o600))
	root := sb.Root()
	links := map[string]string{
		"filelink":  filepath.Join(outside, "secret"),
		"dirlink":   outside,
		"goodlink":  filepath.Join(root, "inside.txt"),
		"rellink":   "a/b.txt",
		"adir":      filepath.Join(root, "a"),
		"a/up":      "../inside.txt",
		"a/chain":   "../adir/b.txt",
		"escape":    "../" + filepath.Base(outside),
		"dangling":  filepath.Join(outside, "missing", "dir"),
		"loop":      "loop",
		"proclink":  "/proc/self/environ",
		"a/newlink": "../fresh/new.txt",
	}
	for name, target := range links {
		require.NoError(t, os.Symlink(target, filepath.Join(root, name)))
	}

	tests := []struct {
		name, path string
		want       string // resolved name relative to root when accepted
		reject     string // part of the error when refused
	}{
		{name: "plain", path: "a/b.txt", want: "a/b.txt"},
		{name: "empty is root", path: "", want: "."},
		{name: "dot is root", path: ".", want: "."},
		{name: "inner dotdot stays inside", path: "a/../inside.txt", want: "inside.txt"},
		{name: "new file", path: "new/dir/file.go", want: "new/dir/file.go"},
		{name: "absolute inside", path: filepath.Join(root, "a", "b.txt"), want: "a/b.txt"},
		{name: "absolute symlink inside", path: "goodlink", want: "inside.txt"},
		{name: "relative symlink", path: "rellink", want: "a/b.txt"},
		{name: "absolute symlinked dir inside", path: "adir/b.txt", want: "a/b.txt"},
		{name: "symlink up", path: "a/up", want: "inside.txt"},
		{name: "chain of symlinks", path: "a/chain", want: "a/b.txt"},
		{name: "symlink to a new file", path: "a/newlink", want: "fresh/new.txt"},
		{name: "dotdot", path: "..", reject: `path ".." leaves the workspace`},
		{name: "dotdot etc", path: "../etc/passwd", reject: `path "../etc/passwd" leaves the workspace`},
		{name: "dotdot after dir", path: "a/../../x", reject: "leaves the workspace"},
		{name: "absolute outside", path: "/etc/passwd", reject: "is outside the workspace"},
		{name: "absolute sibling prefix", path: root + "-other/x", reject: "is outside the workspace"},
		{name: "symlink file escape", path: "filelink", reject: "goes through the symlink filelink to"},
		{name: "symlink dir escape existing", path: "dirlink/secret", reject: "outside the workspace"},
		{name: "symlink dir escape new file", path: "dirlink/new/file.txt", reject: "outside the workspace"},
		{name: "relative symlink escape", path: "escape/secret", reject: "leads outside the workspace"},
		{name: "dangling symlink out", path: "dangling/x", reject: "outside the workspace"},
		{name: "magic link", path: "proclink", reject: "outside the workspace"},
		{name: "loop", path: "loop", reject: "goes through more than 40 symlinks"},
		{name: "nul byte", path: "a\x00b", reject: "contains a NUL byte"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := resolve(t, sb, tt.path)
			if tt.reject != "" {
				requireToolError(t, err, tt.reject)
				var pe *PathError
				require.True(t, errors.As(err, &pe), "want a PathError")
				assert.Equal(t, tt.path, pe.Path)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.want, filepath.ToSlash(got))
		})
	}
}

func TestSandboxFollowsInsideSymlinks(t *testing.T) {
	sb := newWorkspace(t, map[string]string{"a/b.txt": "bee\n"})
	require.NoError(t, os.Symlink(filepath.Join(sb.Root(), "a"), filepath.Join(sb.Root(), "abs")))
	require.NoError(t, os.Symlink("a/b.txt", filepath.Join(sb.Root(), "rel")))
	for _, p := range []string{"abs/b.txt", "rel", filepath.Join(sb.Root(), "abs", "b.txt")} {
		got, err := sb.ReadFile(p, 0)
		require.NoError(t, err, p)
		assert.Equal(t, "bee\n", string(got), p)
	}
}

func TestSandboxReadFile(t *testing.T) {
	sb := newWorkspace(t, map[string]string{"small.txt": "hello", "big.txt": strings.Repeat("x", 2048)})
	require.NoError(t, os.Mkdir(filepath.Join(sb.Root(), "dir"), 0o755))

	tests := []struct {
		name, path string
		max        int64
		want       string
		reject     string
	}{
		{name: "small", path: "small.txt", max: 1024, want: "hello"},
		{name: "exactly at limit", path: "big.txt", max: 2048, want: strings.Repeat("x", 2048)},
		{name: "oversized", path: "big.txt", max: 1024, reject: "2048 bytes, over the 1024-byte read limit"},
		{name: "default limit", path: "big.txt", max: 0, want: strings.Repeat("x", 2048)},
		{name: "missing", path: "nope.txt", max: 1024, reject: "read nope.txt: no such file"},
		{name: "directory", path: "dir", max: 1024, reject: "not a regular file"},
		{name: "escape", path: "../x", max: 1024, reject: "leaves the workspace"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := sb.ReadFile(tt.path, tt.max)
			if tt.reject != "" {
				requireToolError(t, err, tt.reject)
				assert.NotContains(t, err.Error(), sb.Root(), "messages speak of workspace paths")
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.want, string(got))
		})
	}
}

func TestNewSandboxRejectsBadRoots(t *testing.T) {
	file := filepath.Join(t.TempDir(), "f")
	require.NoError(t, os.WriteFile(file, nil, 0o644))
	for _, root := range []string{"", filepath.Join(t.TempDir(), "missing"), file} {
		_, err := NewSandbox(root)
		assert.Error(t, err, "root %q", root)
	}
}

func TestSandboxRootResolvesSymlinks(t *testing.T) {
	real := t.TempDir()
	link := filepath.Join(t.TempDir(), "ws")
	require.NoError(t, os.Symlink(real, link))
	sb, err := NewSandbox(link)
	require.NoError(t, err)
	want, err := filepath.EvalSymlinks(real)
	require.NoError(t, err)
	assert.Equal(t, want, sb.Root())
	for p, rel := range map[string]string{filepath.Join(want, "x"): "x", filepath.Join(link, "x"): "x",
		filepath.Join(link, "new", "y"): "new/y"} {
		got, err := resolve(t, sb, p)
		require.NoError(t, err, p)
		assert.Equal(t, rel, filepath.ToSlash(got))
	}
	_, err = resolve(t, sb, filepath.Join(filepath.Dir(link), "other"))
	requireToolError(t, err, "is outside the workspace")
}

func TestEscapesRecognizesTheRootsRefusal(t *testing.T) {
	r, err := os.OpenRoot(t.TempDir())
	require.NoError(t, err)
	defer r.Close()
	_, err = r.Open("../x")
	assert.True(t, escapes(err), "os.Root's refusal is recognized: %v", err)
	assert.False(t, escapes(os.ErrNotExist))
}
