//go:build unix

package main

import (
	"os"
	"strconv"
	"syscall"
)

// sealInheritedFiles marks every descriptor above stderr close-on-exec.
// Go opens its own files that way, but descriptors the worker inherited
// from whatever started it (a shell, a supervisor, a test harness) are
// not, and every program the worker starts, a plan's sandboxed commands
// among them, would inherit them in turn: an open socket or secret file
// reachable from inside the sandbox by number.
func sealInheritedFiles() {
	entries, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		return // no /proc: nothing to enumerate, and nothing inherited is known
	}
	for _, e := range entries {
		if fd, err := strconv.Atoi(e.Name()); err == nil && fd > 2 {
			syscall.CloseOnExec(fd)
		}
	}
}
