//go:build unix

package tools

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// flipNames plays a hostile command of a parallel step: until stop is
// closed or its budget is spent, it turns the workspace's x into a symlink
// to the outside secret and back into a regular file, and d into a
// symlink to the outside directory and back into a directory holding x.
// It returns how many times it flipped.
func flipNames(root, outside string, stop <-chan struct{}) int {
	x, d := filepath.Join(root, "x"), filepath.Join(root, "d")
	deadline := time.Now().Add(2 * time.Second)
	n := 0
	for ; n < 100_000 && time.Now().Before(deadline); n++ {
		select {
		case <-stop:
			return n
		default:
		}
		// Errors are expected: the tools delete and rewrite these names too.
		os.Remove(x + ".new")
		os.RemoveAll(d + ".old") // a symlink is removed, not followed
		os.Rename(d, d+".old")
		if n%2 == 0 {
			os.Symlink(filepath.Join(outside, "secret.txt"), x+".new")
			os.Symlink(outside, d)
		} else {
			os.WriteFile(x+".new", []byte("inside\n"), 0o644)
			if os.Mkdir(d, 0o755) == nil { // else d may still be a symlink leading out
				os.WriteFile(filepath.Join(d, "x"), []byte("inside\n"), 0o644)
			}
		}
		os.Rename(x+".new", x)
	}
	return n
}

// TestFileToolsUnderSymlinkSwaps runs the file tools in a loop on names a
// concurrent process keeps swapping for symlinks that lead out: nothing
// outside may be read, listed, written, created or deleted.
func TestFileToolsUnderSymlinkSwaps(t *testing.T) {
	outside, unchanged := outsideDir(t)
	sb := newWorkspace(t, map[string]string{"x": "inside\n", "d/x": "inside\n", "keep.txt": "keep\n"})
	reg := Builtin(DefaultConfig())
	calls := map[string][]string{
		"read_file":    {`{"path":"x"}`, `{"path":"d/x"}`},
		"write_file":   {`{"path":"x","content":"w\n"}`, `{"path":"d/x","content":"w\n"}`},
		"delete_file":  {`{"path":"x"}`, `{"path":"d/x"}`},
		"list_files":   {`{"recursive":true}`, `{"path":"d"}`},
		"search_files": {`{"pattern":"*"}`},
		"search_code":  {`{"pattern":"."}`},
	}
	stop := make(chan struct{})
	var wg sync.WaitGroup
	var runs atomic.Int64
	for name, args := range calls {
		tool, ok := reg.Get(name)
		require.True(t, ok, name)
		wg.Go(func() {
			for i := 0; ; i++ {
				select {
				case <-stop:
					return
				default:
				}
				runtime.Gosched() // leave the flipper its share of two CPUs too
				res, err := tool.Run(context.Background(), Env{Root: sb}, json.RawMessage(args[i%len(args)]))
				runs.Add(1)
				msg := ""
				if err != nil {
					msg = err.Error()
					assert.True(t, IsToolError(err), "%s: a worker fault: %v", name, err)
				}
				// A refusal may name the symlink's target; only the
				// secret's content and the outside directory's entries
				// (d/secret.txt, d/sub/ through d) must never show.
				if leaked(res.Output) || leaked(msg) || strings.Contains(res.Output, "secret.txt") ||
					strings.Contains(res.Output, "sub/") {
					t.Errorf("%s %s reached outside the workspace: %q %q", name, args[i%len(args)], res.Output, msg)
				}
			}
		})
	}
	flips := flipNames(sb.Root(), outside, stop)
	close(stop)
	wg.Wait()
	t.Logf("%d flips, %d tool calls", flips, runs.Load())
	assert.Greater(t, flips, 10, "the names were flipped")
	assert.Greater(t, runs.Load(), int64(len(calls)), "the tools ran")
	unchanged()
}

// openDescriptors counts this process's open file descriptors, or skips
// the test where /proc does not tell.
func openDescriptors(t *testing.T) int {
	t.Helper()
	entries, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		t.Skipf("cannot count open descriptors here: %v", err)
	}
	return len(entries)
}

func TestFileToolsLeakNoDescriptors(t *testing.T) {
	sb := newWorkspace(t, map[string]string{"a.txt": "a\n", "d/b.txt": "b\n"})
	require.NoError(t, os.Symlink("/etc/hostname", filepath.Join(sb.Root(), "out")))
	reg := Builtin(DefaultConfig())
	calls := [][2]string{
		{"read_file", `{"path":"a.txt"}`}, {"read_file", `{"path":"out"}`}, {"read_file", `{"path":"missing"}`},
		{"write_file", `{"path":"d/c.txt","content":"c\n"}`}, {"write_file", `{"path":"out","content":"x"}`},
		{"delete_file", `{"path":"d/c.txt"}`}, {"list_files", `{"recursive":true}`}, {"list_files", `{"path":"a.txt"}`},
		{"search_files", `{"pattern":"*.txt"}`}, {"search_code", `{"pattern":"b"}`},
	}
	before := openDescriptors(t)
	for range 200 {
		for _, c := range calls {
			_, err := call(t, reg, sb, c[0], c[1])
			if err != nil {
				require.True(t, IsToolError(err), "%s %s: %v", c[0], c[1], err)
			}
		}
	}
	assert.LessOrEqual(t, openDescriptors(t), before+2, "descriptors are closed after every call")
}
