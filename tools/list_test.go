package tools

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// repoFiles is a small source tree used by the listing and search tests.
var repoFiles = map[string]string{
	"go.mod":                "module x\n",
	"main.go":               "package main\n\nfunc main() {}\n",
	"cmd/tool/run.go":       "package tool\n\nfunc RunHandler() {}\n",
	"cmd/tool/run_test.go":  "package tool\n",
	"internal/a/b/deep.go":  "package b\n// TODO: fix\n",
	"docs/readme.md":        "TODO: write docs\n",
	".git/HEAD":             "ref: refs/heads/main\n",
	".git/objects/ab/cdef":  "TODO inside git\n",
	"assets/logo.bin":       "TODO\x00\x01binary",
	"internal/a/b/notes.md": "nothing here\n",
}

func TestListFiles(t *testing.T) {
	sb := newWorkspace(t, repoFiles)
	reg := Builtin(DefaultConfig())

	tests := []struct {
		name, args string
		want       []string
		truncated  bool
		reject     string
	}{
		{name: "root", args: `{}`,
			want: []string{"assets/", "cmd/", "docs/", "go.mod", "internal/", "main.go"}},
		{name: "subdir", args: `{"path":"cmd/tool"}`, want: []string{"cmd/tool/run.go", "cmd/tool/run_test.go"}},
		{name: "recursive", args: `{"path":"internal","recursive":true}`,
			want: []string{"internal/a/", "internal/a/b/", "internal/a/b/deep.go", "internal/a/b/notes.md"}},
		{name: "bounded", args: `{"recursive":true,"max":2}`, want: []string{"assets/", "assets/logo.bin"}, truncated: true},
		{name: "not a dir", args: `{"path":"main.go"}`, reject: "not a directory"},
		{name: "escape", args: `{"path":"../"}`, reject: "leaves the workspace"},
		{name: "negative max", args: `{"max":-1}`, reject: "must not be negative"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, err := call(t, reg, sb, "list_files", tt.args)
			if tt.reject != "" {
				requireToolError(t, err, tt.reject)
				return
			}
			require.NoError(t, err)
			lines := strings.Split(res.Output, "\n")
			if tt.truncated {
				assert.Contains(t, lines[len(lines)-1], "stopped at")
				lines = lines[:len(lines)-1]
			}
			assert.Equal(t, tt.want, lines)
			assert.Equal(t, tt.truncated, res.Truncated)
			assert.NotContains(t, res.Output, ".git")
		})
	}
}

func TestSearchFiles(t *testing.T) {
	sb := newWorkspace(t, repoFiles)
	reg := Builtin(DefaultConfig())

	tests := []struct {
		name, pattern string
		want          []string
	}{
		{name: "basename anywhere", pattern: "*.go",
			want: []string{"cmd/tool/run.go", "cmd/tool/run_test.go", "internal/a/b/deep.go", "main.go"}},
		{name: "double star", pattern: "internal/**/*.md", want: []string{"internal/a/b/notes.md"}},
		{name: "double star zero dirs", pattern: "cmd/**/tool/run.go", want: []string{"cmd/tool/run.go"}},
		{name: "anchored", pattern: "cmd/*/*_test.go", want: []string{"cmd/tool/run_test.go"}},
		{name: "root only", pattern: "/*.go", want: []string{"main.go"}},
		{name: "git skipped", pattern: "**/HEAD", want: []string{"(no entries)"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, err := call(t, reg, sb, "search_files", fmt.Sprintf(`{"pattern":%q}`, tt.pattern))
			require.NoError(t, err)
			assert.Equal(t, tt.want, strings.Split(res.Output, "\n"))
		})
	}
	_, err := call(t, reg, sb, "search_files", `{"pattern":"[x"}`)
	requireToolError(t, err, "bad glob")
	res, err := call(t, reg, sb, "search_files", `{"pattern":"**","max":3}`)
	require.NoError(t, err)
	assert.True(t, res.Truncated)
}

func TestGlobMatch(t *testing.T) {
	tests := []struct {
		pattern, path string
		want          bool
	}{
		{"**/*.go", "a.go", true},
		{"**/*.go", "a/b/c.go", true},
		{"a/**", "a/b/c", true},
		{"a/**/c", "a/c", true},
		{"a/**/c", "a/x/y/c", true},
		{"a/**/c", "b/x/c", false},
		{"*.go", "x/y.go", true},
		{"x/*.go", "x/y/z.go", false},
		{"x/?.go", "x/y.go", true},
		{"/*.go", "a.go", true},
		{"/*.go", "x/a.go", false},
		{"**", "a/b/c", true},
		{"*.{go,md}", "docs/readme.md", true},
		{"a//b/./c", "a/b/c", true},
	}
	for _, tt := range tests {
		g, err := compileGlob(tt.pattern)
		require.NoError(t, err)
		assert.Equal(t, tt.want, g.match(tt.path), "%s ~ %s", tt.pattern, tt.path)
	}
}

func TestSearchCode(t *testing.T) {
	files := map[string]string{"huge.txt": "TODO " + strings.Repeat("z", 5000)}
	for k, v := range repoFiles {
		files[k] = v
	}
	sb := newWorkspace(t, files)
	reg := Builtin(Config{MaxReadBytes: 4096})

	tests := []struct {
		name, args string
		want       []string
		reject     string
	}{
		{name: "regex across files", args: `{"pattern":"TODO"}`,
			want: []string{"docs/readme.md:1: TODO: write docs", "internal/a/b/deep.go:2: // TODO: fix"}},
		{name: "glob filter", args: `{"pattern":"TODO","glob":"**/*.go"}`,
			want: []string{"internal/a/b/deep.go:2: // TODO: fix"}},
		{name: "re2 classes", args: `{"pattern":"func \\w+Handler\\("}`,
			want: []string{"cmd/tool/run.go:3: func RunHandler() {}"}},
		{name: "no match", args: `{"pattern":"nothing-like-this"}`, want: []string{"(no matches)"}},
		{name: "bad regex", args: `{"pattern":"(?<=x)"}`, reject: `invalid argument "pattern"`},
		{name: "missing pattern", args: `{"glob":"*.go"}`, reject: `missing argument "pattern"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, err := call(t, reg, sb, "search_code", tt.args)
			if tt.reject != "" {
				requireToolError(t, err, tt.reject)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.want, strings.Split(res.Output, "\n"), "binary, oversized and .git files are skipped")
		})
	}
}

func TestSearchCodeBounded(t *testing.T) {
	sb := newWorkspace(t, map[string]string{"many.txt": strings.Repeat("hit\n", 50)})
	res, err := call(t, Builtin(DefaultConfig()), sb, "search_code", `{"pattern":"hit","max":5}`)
	require.NoError(t, err)
	lines := strings.Split(res.Output, "\n")
	assert.Len(t, lines, 6)
	assert.Equal(t, "many.txt:5: hit", lines[4])
	assert.Contains(t, lines[5], "stopped at 5")
	assert.True(t, res.Truncated)
}

func TestWalkSkipsSymlinkedDirs(t *testing.T) {
	sb := newWorkspace(t, map[string]string{"a.txt": "TODO"})
	outside := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(outside, "secret.txt"), []byte("TODO secret"), 0o644))
	require.NoError(t, os.Symlink(outside, filepath.Join(sb.Root(), "out")))
	res, err := call(t, Builtin(DefaultConfig()), sb, "search_code", `{"pattern":"TODO"}`)
	require.NoError(t, err)
	assert.Equal(t, "a.txt:1: TODO", res.Output)
	res, err = call(t, Builtin(DefaultConfig()), sb, "list_files", `{"recursive":true}`)
	require.NoError(t, err)
	assert.NotContains(t, res.Output, "secret")
}
