//go:build unix

package tools

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The tests here play a command of a parallel step that swaps a workspace
// name for a symlink leading out at the worst moment: after the tool has
// looked at the name and before it uses it (testHookAfterResolve).

const canary = "CANARY-7f3a9c outside the workspace\n"

// outsideDir returns a directory outside the workspace holding secret.txt
// and x.txt (the canary) and sub/CANARY-name.txt, and a function that asserts it
// was left exactly as it was: same entries, content and mtimes.
func outsideDir(t *testing.T) (string, func()) {
	t.Helper()
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "secret.txt"), []byte(canary), 0o600))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "x.txt"), []byte(canary), 0o600))
	require.NoError(t, os.Mkdir(filepath.Join(dir, "sub"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "sub", "CANARY-name.txt"), []byte(canary), 0o600))
	before := snapshotTree(t, dir)
	return dir, func() {
		t.Helper()
		assert.Equal(t, before, snapshotTree(t, dir), "the directory outside the workspace is unchanged")
	}
}

// snapshotTree maps every path under dir to its content and mtime.
func snapshotTree(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	require.NoError(t, filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		require.NoError(t, err)
		fi, err := d.Info()
		require.NoError(t, err)
		content := ""
		if fi.Mode().IsRegular() {
			b, err := os.ReadFile(p)
			require.NoError(t, err)
			content = string(b)
		}
		out[p] = fi.ModTime().Format(time.RFC3339Nano) + " " + content
		return nil
	}))
	return out
}

// swapOn sets testHookAfterResolve so that, the first time a tool reaches
// the workspace name trigger, the workspace name victim is replaced by a
// symlink to target.
func swapOn(t *testing.T, sb *Sandbox, trigger, victim, target string) *bool {
	t.Helper()
	swapped := new(bool)
	testHookAfterResolve = func(name string) {
		if name != trigger || *swapped {
			return
		}
		*swapped = true
		p := filepath.Join(sb.Root(), filepath.FromSlash(victim))
		require.NoError(t, os.RemoveAll(p))
		require.NoError(t, os.Symlink(target, p))
	}
	t.Cleanup(func() { testHookAfterResolve = nil })
	return swapped
}

// secretTargets are where a swapped read is pointed: a file outside the
// workspace, by its absolute path and by one relative to the workspace
// (relativeOutside), and, where there is one, the worker's own environment.
func secretTargets(outside string) map[string]string {
	targets := map[string]string{"outside file": filepath.Join(outside, "secret.txt"),
		"relative outside file": relativeOutside}
	if env, err := os.ReadFile("/proc/self/environ"); err == nil && len(env) > 0 {
		targets["proc environ"] = "/proc/self/environ"
	}
	return targets
}

// relativeOutside stands for the outside secret named relative to the
// workspace; targetFor makes it so.
const relativeOutside = "relative"

// targetFor returns target, with relativeOutside made into the path of
// outside's secret relative to the workspace of sb.
func targetFor(t *testing.T, sb *Sandbox, outside, target string) string {
	if target != relativeOutside {
		return target
	}
	rel, err := filepath.Rel(sb.Root(), filepath.Join(outside, "secret.txt"))
	require.NoError(t, err)
	return rel
}

// leaked reports whether s holds the canary or a line of the worker's
// environment.
func leaked(s string) bool {
	if strings.Contains(s, "CANARY") {
		return true
	}
	for _, kv := range os.Environ() {
		if len(kv) > 8 && strings.Contains(s, kv) {
			return true
		}
	}
	return false
}

func TestReadFileSwappedForSymlink(t *testing.T) {
	outside, unchanged := outsideDir(t)
	for name, target := range secretTargets(outside) {
		t.Run(name, func(t *testing.T) {
			sb := newWorkspace(t, map[string]string{"x.txt": "inside\n"})
			swapped := swapOn(t, sb, "x.txt", "x.txt", targetFor(t, sb, outside, target))
			res, err := call(t, Builtin(DefaultConfig()), sb, "read_file", `{"path":"x.txt"}`)
			require.True(t, *swapped, "the hook ran")
			assert.False(t, leaked(res.Output), "read_file returned what lies outside: %q", res.Output)
			requireToolError(t, err, "outside the workspace")
			assert.False(t, leaked(err.Error()))
		})
	}
	unchanged()
}

func TestWriteFileSwappedForSymlink(t *testing.T) {
	for _, victim := range []string{"d", "d/x.txt"} {
		t.Run(victim, func(t *testing.T) {
			outside, unchanged := outsideDir(t)
			sb := newWorkspace(t, map[string]string{"d/x.txt": "inside\n"})
			target := outside
			if victim == "d/x.txt" {
				target = filepath.Join(outside, "x.txt")
			}
			swapped := swapOn(t, sb, "d/x.txt", victim, target)
			res, err := call(t, Builtin(DefaultConfig()), sb, "write_file", `{"path":"d/x.txt","content":"written\n"}`)
			require.True(t, *swapped, "the hook ran")
			if err == nil {
				// Only a write over the swapped symlink itself, inside, is acceptable.
				assert.Equal(t, "written\n", readFile(t, sb, "d/x.txt"))
				assert.NotContains(t, res.Output, "-1 lines", "the outside file was not read to count lines")
			} else {
				requireToolError(t, err, "outside the workspace")
			}
			unchanged()
		})
	}
}

func TestDeleteFileSwappedForSymlink(t *testing.T) {
	outside, unchanged := outsideDir(t)
	sb := newWorkspace(t, map[string]string{"d/x.txt": "inside\n"})
	swapped := swapOn(t, sb, "d/x.txt", "d", outside)
	_, err := call(t, Builtin(DefaultConfig()), sb, "delete_file", `{"path":"d/x.txt"}`)
	require.True(t, *swapped, "the hook ran")
	requireToolError(t, err, "outside the workspace")
	unchanged()
}

func TestListFilesSwappedForSymlink(t *testing.T) {
	outside, unchanged := outsideDir(t)
	sb := newWorkspace(t, map[string]string{"d/sub/in.txt": "inside\n"})
	swapped := swapOn(t, sb, "d/sub", "d", outside)
	res, err := call(t, Builtin(DefaultConfig()), sb, "list_files", `{"path":"d/sub","recursive":true}`)
	require.True(t, *swapped, "the hook ran")
	assert.NotContains(t, res.Output, "CANARY", "list_files listed a directory outside")
	requireToolError(t, err, "outside the workspace")
	unchanged()
}

func TestSearchFilesSwappedForSymlink(t *testing.T) {
	outside, unchanged := outsideDir(t)
	sb := newWorkspace(t, map[string]string{"d/sub/in.txt": "inside\n", "top.txt": "top\n"})
	swapped := swapOn(t, sb, "d", "d", outside)
	res, err := call(t, Builtin(DefaultConfig()), sb, "search_files", `{"pattern":"*.txt"}`)
	require.True(t, *swapped, "the hook ran")
	require.NoError(t, err)
	assert.Equal(t, "top.txt", res.Output, "search_files walked only the workspace")
	unchanged()
}

func TestSearchCodeSwappedForSymlink(t *testing.T) {
	outside, unchanged := outsideDir(t)
	for name, target := range secretTargets(outside) {
		t.Run(name, func(t *testing.T) {
			sb := newWorkspace(t, map[string]string{"x.txt": "inside\n", "y.txt": "why\n"})
			swapped := swapOn(t, sb, "x.txt", "x.txt", targetFor(t, sb, outside, target))
			res, err := call(t, Builtin(DefaultConfig()), sb, "search_code", `{"pattern":"."}`)
			require.True(t, *swapped, "the hook ran")
			require.NoError(t, err)
			assert.False(t, leaked(res.Output), "search_code returned what lies outside: %q", res.Output)
			assert.Equal(t, "y.txt:1: why", res.Output)
		})
	}
	unchanged()
}

func TestRunTestsDetectionSwappedForSymlink(t *testing.T) {
	outside := t.TempDir()
	files := map[string]string{"package.json": `{"scripts":{"test":"CANARY"}}`, "Makefile": "test:\n\tCANARY\n"}
	for name, content := range files {
		require.NoError(t, os.WriteFile(filepath.Join(outside, name), []byte(content), 0o644))
	}
	for name := range files {
		t.Run(name, func(t *testing.T) {
			sb := newWorkspace(t, map[string]string{name: "{}\n"})
			swapped := swapOn(t, sb, name, name, filepath.Join(outside, name))
			got, err := TestCommand(sb.Root(), Config{})
			require.True(t, *swapped, "the hook ran")
			assert.Nil(t, got, "run_tests read the file outside")
			requireToolError(t, err, "no test command found")
		})
	}
}

// TestReadFileLinkSwappedBackForFile plays the swap the other way round: the
// name was a symlink leading out when resolve looked at it, and is a file
// inside again when it reads the link. The read must look again and give
// the file inside, not fail on a link that is no longer there.
func TestReadFileLinkSwappedBackForFile(t *testing.T) {
	outside, unchanged := outsideDir(t)
	sb := newWorkspace(t, nil)
	p := filepath.Join(sb.Root(), "x.txt")
	require.NoError(t, os.Symlink(filepath.Join(outside, "secret.txt"), p))
	swapped := false
	testHookBeforeReadlink = func(name string) {
		if name != "x.txt" || swapped {
			return
		}
		swapped = true
		require.NoError(t, os.Remove(p))
		require.NoError(t, os.WriteFile(p, []byte("inside\n"), 0o644))
	}
	t.Cleanup(func() { testHookBeforeReadlink = nil })
	res, err := call(t, Builtin(DefaultConfig()), sb, "read_file", `{"path":"x.txt"}`)
	require.True(t, swapped, "the hook ran")
	require.NoError(t, err)
	assert.Equal(t, "inside\n", res.Output)
	unchanged()
}
