//go:build unix

package tools

import (
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// returnsWithin runs f and fails the test when it has not returned after d: a
// named pipe opened for reading blocks until a writer comes.
func returnsWithin(t *testing.T, d time.Duration, f func()) {
	t.Helper()
	done := make(chan struct{})
	go func() {
		defer close(done)
		f()
	}()
	select {
	case <-done:
	case <-time.After(d):
		t.Fatalf("still blocked after %s", d)
	}
}

func TestReadFileRefusesNamedPipe(t *testing.T) {
	sb := newWorkspace(t, nil)
	require.NoError(t, syscall.Mkfifo(filepath.Join(sb.Root(), "pipe"), 0o644))
	reg := Builtin(DefaultConfig())
	var err error
	returnsWithin(t, 5*time.Second, func() { _, err = call(t, reg, sb, "read_file", `{"path":"pipe"}`) })
	requireToolError(t, err, "read pipe: not a regular file")
}

func TestRunTestsIgnoresNamedPipes(t *testing.T) {
	for _, name := range []string{"package.json", "Makefile"} {
		t.Run(name, func(t *testing.T) {
			sb := newWorkspace(t, nil)
			require.NoError(t, syscall.Mkfifo(filepath.Join(sb.Root(), name), 0o644))
			var err error
			returnsWithin(t, 5*time.Second, func() { _, err = TestCommand(sb.Root(), Config{}) })
			requireToolError(t, err, "no test command found")
		})
	}
}
