//go:build unix && !linux

package tools

import (
	"os/exec"
	"syscall"
)

// setParentDeathSignal does nothing: only Linux has a parent-death signal.
func setParentDeathSignal(*syscall.SysProcAttr) {}

// ownPIDNamespace does nothing: PID namespaces are Linux's (and so is
// bubblewrap).
func ownPIDNamespace(*exec.Cmd) {}

// countTasks returns 0: only Linux's /proc is read.
func countTasks(int) int { return 0 }
