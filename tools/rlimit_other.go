//go:build !linux

package tools

// setRlimits does nothing: commands run sandboxed, and so limited, on
// Linux only.
func (s CommandSandbox) setRlimits(pid int) error { return nil }
