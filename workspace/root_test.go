package workspace

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/planmode/planmode/internal/testkit"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestResolve(t *testing.T) {
	root := testkit.Workspace(t, map[string]string{"proj/x.txt": "x", "file.txt": "f"})
	outside := testkit.Workspace(t, map[string]string{"secret.txt": "s"})
	require.NoError(t, os.Symlink(outside, filepath.Join(root, "link")))
	require.NoError(t, os.Symlink(".", filepath.Join(root, "self")))
	r := Root{Dir: root}

	tests := []struct {
		name, ws string
		want     string
		reject   string
	}{
		{name: "empty under a root", ws: "", reject: "must be a folder inside workspace.root, not the root"},
		{name: "the root itself", ws: root, reject: "is the workspace root"},
		{name: "the root as dot", ws: ".", reject: "is the workspace root"},
		{name: "the root by a detour", ws: "proj/..", reject: "is the workspace root"},
		{name: "a symlink to the root", ws: "self", reject: "is the workspace root"},
		{name: "absolute inside", ws: filepath.Join(root, "proj"), want: filepath.Join(root, "proj")},
		{name: "relative inside", ws: "proj", want: filepath.Join(root, "proj")},
		{name: "absolute outside", ws: outside, reject: "is outside the workspace root"},
		{name: "relative escape", ws: "../", reject: "is outside the workspace root"},
		{name: "symlink escape", ws: "link", reject: "is outside the workspace root"},
		{name: "missing", ws: "nope", reject: "no such file"},
		{name: "a file", ws: "file.txt", reject: "is not a directory"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := r.Resolve(tt.ws, true)
			if tt.reject != "" {
				requireRefusal(t, err, ErrRejected, tt.reject)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.want, got)
		})
	}

	_, err := Root{}.Resolve("", true)
	requireRefusal(t, err, ErrRejected, "no workspace")
	got, err := Root{}.Resolve(outside, true)
	require.NoError(t, err, "without a root any workspace is accepted")
	assert.Equal(t, outside, got)

	gone := filepath.Join(root, "gone", "deeper")
	got, err = r.Resolve(gone, false)
	require.NoError(t, err, "a workspace that need not exist is created")
	assert.Equal(t, gone, got)
	assert.DirExists(t, gone)
}

func TestOverlaps(t *testing.T) {
	tests := []struct {
		a, b string
		want bool
	}{
		{"/ws/shop", "/ws/shop", true},
		{"/ws/shop", "/ws/shop/sub", true},
		{"/ws/shop/sub", "/ws/shop", true},
		{"/ws/shop", "/ws/shopping", false},
		{"/ws/shop", "/ws/cart", false},
		{"/ws/shop/", "/ws/shop", true},
		{"/ws/shop/../cart", "/ws/cart/x", true},
		{"/", "/ws", true},
		{"shop", "shop/sub", true},
		{"shop", "cart", false},
		{"shop", "shopping", false},
		{".", "shop", true},
		{"", "shop", true},
		{"a/b", "a/c", false},
		{"../x", "a", true},
		{"shop", "/ws/shop", true},
		{"/ws/cart", "shop", true},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, Overlaps(tt.a, tt.b), "Overlaps(%q, %q)", tt.a, tt.b)
		assert.Equal(t, tt.want, Overlaps(tt.b, tt.a), "Overlaps(%q, %q)", tt.b, tt.a)
	}
}
