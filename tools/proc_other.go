//go:build !unix

package tools

import "os/exec"

// isolate keeps exec's default: cancellation kills the process only.
func isolate(cmd *exec.Cmd) {}

// ownPIDNamespace does nothing: PID namespaces are Linux's (and so is
// bubblewrap).
func ownPIDNamespace(*exec.Cmd) {}
