//go:build linux

package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"syscall"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestInheritedFilesDoNotReachCommands opens a file the way a parent
// process hands one down (without close-on-exec), seals, and checks that a
// program the worker starts no longer has it.
func TestInheritedFilesDoNotReachCommands(t *testing.T) {
	secret := filepath.Join(t.TempDir(), "secret")
	require.NoError(t, os.WriteFile(secret, []byte("s"), 0o600))
	fd, err := syscall.Open(secret, syscall.O_RDONLY, 0)
	require.NoError(t, err)
	t.Cleanup(func() { syscall.Close(fd) })
	sees := func() bool {
		// test -e on /proc/self/fd/N in the child: does it hold fd N?
		return exec.Command("sh", "-c", "test -e /proc/self/fd/"+strconv.Itoa(fd)).Run() == nil
	}
	require.True(t, sees(), "the attack: a child inherits a descriptor opened without close-on-exec")
	sealInheritedFiles()
	require.False(t, sees(), "after sealing, a child does not inherit it")
}
