package tools

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/planmode/planmode/plan"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestReadFile(t *testing.T) {
	var long strings.Builder
	for i := 1; i <= 10; i++ {
		fmt.Fprintf(&long, "line %d\n", i)
	}
	sb := newWorkspace(t, map[string]string{"ten.txt": long.String(), "big.txt": strings.Repeat("y", 5000)})
	reg := Builtin(Config{MaxReadBytes: 4096, MaxOutputBytes: 1 << 20})

	tests := []struct {
		name, args    string
		want          string
		truncated     bool
		reject        string
		wantInTrailer string
	}{
		{name: "whole", args: `{"path":"ten.txt"}`, want: long.String()},
		{name: "window", args: `{"path":"ten.txt","offset":2,"limit":3}`, want: "line 3\nline 4\nline 5\n",
			truncated: true, wantInTrailer: "showing lines 3-5 of 10"},
		{name: "offset past end", args: `{"path":"ten.txt","offset":50}`, want: "[offset 50 is past the end: the file has 10 lines]"},
		{name: "too big", args: `{"path":"big.txt"}`, reject: "over the 4096-byte read limit"},
		{name: "missing path", args: `{}`, reject: `missing argument "path"`},
		{name: "escape", args: `{"path":"../../etc/passwd"}`, reject: "leaves the workspace"},
		{name: "wrong type", args: `{"path":"ten.txt","limit":"3"}`, reject: `invalid argument "limit": expected an integer, got string`},
		{name: "negative", args: `{"path":"ten.txt","offset":-1}`, reject: "must not be negative"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, err := call(t, reg, sb, "read_file", tt.args)
			if tt.reject != "" {
				requireToolError(t, err, tt.reject)
				return
			}
			require.NoError(t, err)
			assert.True(t, strings.HasPrefix(res.Output, tt.want), "output %q", res.Output)
			assert.Contains(t, res.Output, tt.wantInTrailer)
			assert.Equal(t, tt.truncated, res.Truncated)
		})
	}
}

func TestReadFileOutputCap(t *testing.T) {
	sb := newWorkspace(t, map[string]string{"f.txt": strings.Repeat("abcdefghij\n", 100)})
	res, err := call(t, Builtin(Config{MaxOutputBytes: 100}), sb, "read_file", `{"path":"f.txt"}`)
	require.NoError(t, err)
	assert.True(t, res.Truncated)
	assert.Contains(t, res.Output, "bytes omitted")
	assert.Less(t, len(res.Output), 300)
}

func TestWriteFile(t *testing.T) {
	sb := newWorkspace(t, map[string]string{"old.txt": "a\nb\nc\n"})
	require.NoError(t, os.Chmod(filepath.Join(sb.Root(), "old.txt"), 0o600))
	reg := Builtin(DefaultConfig())

	tests := []struct {
		name, path, content string
		want                plan.FileChange
	}{
		{name: "create with parents", path: "new/deep/f.go", content: "x\ny\n",
			want: plan.FileChange{Path: "new/deep/f.go", Op: plan.FileCreated, LinesAdded: 2}},
		{name: "modify", path: "old.txt", content: "a\nB\nc\nd\n",
			want: plan.FileChange{Path: "old.txt", Op: plan.FileModified, LinesAdded: 2, LinesRemoved: 1}},
		{name: "rewrite same", path: "old.txt", content: "a\nB\nc\nd\n",
			want: plan.FileChange{Path: "old.txt", Op: plan.FileModified}},
		{name: "empty file", path: "empty", content: "",
			want: plan.FileChange{Path: "empty", Op: plan.FileCreated}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			args := fmt.Sprintf(`{"path":%q,"content":%q}`, tt.path, tt.content)
			res, err := call(t, reg, sb, "write_file", args)
			require.NoError(t, err)
			assert.Equal(t, []plan.FileChange{tt.want}, res.FilesChanged)
			assert.Equal(t, tt.content, readFile(t, sb, tt.path))
		})
	}
	fi, err := os.Stat(filepath.Join(sb.Root(), "old.txt"))
	require.NoError(t, err)
	assert.Equal(t, os.FileMode(0o600), fi.Mode().Perm(), "a rewrite keeps the file's mode")
	leftovers, err := filepath.Glob(filepath.Join(sb.Root(), ".*.tmp"))
	require.NoError(t, err)
	assert.Empty(t, leftovers, "no temporary files left behind")
}

func TestWriteFileRefusals(t *testing.T) {
	sb := newWorkspace(t, map[string]string{"dir/x": "x"})
	outside := t.TempDir()
	require.NoError(t, os.Symlink(outside, filepath.Join(sb.Root(), "out")))
	reg := Builtin(DefaultConfig())

	tests := []struct{ name, args, want string }{
		{name: "escape", args: `{"path":"../evil","content":"x"}`, want: "leaves the workspace"},
		{name: "through symlinked dir", args: `{"path":"out/new.txt","content":"x"}`, want: "outside the workspace"},
		{name: "new dir under symlink", args: `{"path":"out/a/b.txt","content":"x"}`, want: "outside the workspace"},
		{name: "directory", args: `{"path":"dir","content":"x"}`, want: "not a regular file"},
		{name: "root", args: `{"path":".","content":"x"}`, want: "workspace root"},
		{name: "unknown field", args: `{"path":"a","content":"x","mode":"0777"}`, want: `unknown argument "mode"; expected one of: path, content`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := call(t, reg, sb, "write_file", tt.args)
			requireToolError(t, err, tt.want)
		})
	}
	entries, err := os.ReadDir(outside)
	require.NoError(t, err)
	assert.Empty(t, entries, "nothing was written outside the workspace")
}

func TestWriteFileThroughInsideSymlink(t *testing.T) {
	sb := newWorkspace(t, map[string]string{"real.txt": "old\n"})
	require.NoError(t, os.Symlink("real.txt", filepath.Join(sb.Root(), "alias.txt")))
	res, err := call(t, Builtin(DefaultConfig()), sb, "write_file", `{"path":"alias.txt","content":"new\n"}`)
	require.NoError(t, err)
	assert.Equal(t, "real.txt", res.FilesChanged[0].Path)
	assert.Equal(t, "new\n", readFile(t, sb, "real.txt"))
	fi, err := os.Lstat(filepath.Join(sb.Root(), "alias.txt"))
	require.NoError(t, err)
	assert.NotZero(t, fi.Mode()&os.ModeSymlink, "the symlink stays a symlink")
}

func TestDeleteFile(t *testing.T) {
	sb := newWorkspace(t, map[string]string{"a.txt": "1\n2\n3\n", "d/keep": "k"})
	reg := Builtin(DefaultConfig())

	res, err := call(t, reg, sb, "delete_file", `{"path":"a.txt"}`)
	require.NoError(t, err)
	assert.Equal(t, []plan.FileChange{{Path: "a.txt", Op: plan.FileDeleted, LinesRemoved: 3}}, res.FilesChanged)
	assert.NoFileExists(t, filepath.Join(sb.Root(), "a.txt"))

	_, err = call(t, reg, sb, "delete_file", `{"path":"a.txt"}`)
	requireToolError(t, err, "no such file")
	_, err = call(t, reg, sb, "delete_file", `{"path":"d"}`)
	requireToolError(t, err, "is a directory")
	_, err = call(t, reg, sb, "delete_file", `{"path":"../a.txt"}`)
	requireToolError(t, err, "leaves the workspace")
	assert.FileExists(t, filepath.Join(sb.Root(), "d", "keep"))
}

func TestLineDelta(t *testing.T) {
	tests := []struct {
		name, old, new string
		added, removed int
	}{
		{name: "create", old: "", new: "a\nb\n", added: 2},
		{name: "delete", old: "a\nb", new: "", removed: 2},
		{name: "same", old: "a\nb\n", new: "a\nb\n"},
		{name: "moved", old: "a\nb\n", new: "b\na\n", added: 1, removed: 1},
		{name: "insert in the middle", old: "a\nb\nc\n", new: "a\nb\nx\nc\n", added: 1},
		{name: "missing final newline", old: "a\nb", new: "a\nb\n"},
		{name: "change one", old: "a\nb\nc\n", new: "a\nx\nc\n", added: 1, removed: 1},
		{name: "duplicates", old: "a\n", new: "a\na\na\n", added: 2},
		{name: "crlf", old: "a\r\nb\r\n", new: "a\nb\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			added, removed := lineDelta(tt.old, tt.new)
			assert.Equal(t, tt.added, added, "added")
			assert.Equal(t, tt.removed, removed, "removed")
		})
	}
}
