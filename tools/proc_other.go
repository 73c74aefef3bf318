//go:build !unix

package tools

import (
	"os"
	"os/exec"
)

// isolate keeps exec's default: cancellation kills the process only.
func isolate(cmd *exec.Cmd) {}

// ownPIDNamespace does nothing: PID namespaces are Linux's (and so is
// bubblewrap).
func ownPIDNamespace(*exec.Cmd) {}

// countTasks returns 0: only Linux's /proc is read.
func countTasks(int) int { return 0 }

// exitBreach returns nil: resource limits are set on Linux only.
func exitBreach(*os.ProcessState, Limits, bool) *limitBreach { return nil }
