//go:build unix

package tools

import (
	"errors"
	"os"
	"os/exec"
	"syscall"
)

// isolate puts the command in its own process group, asks the kernel to
// kill it when the worker dies (on Linux) and makes cancellation kill the
// whole group. In bubblewrap the group is bubblewrap's own process; the
// sandbox dies with it (--die-with-parent), and every process of the
// sandbox with the sandbox's init. Unsandboxed, a child that leaves the
// group or is orphaned by the worker's death escapes: the sandbox is the
// boundary.
func isolate(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	setParentDeathSignal(cmd.SysProcAttr)
	cmd.Cancel = func() error {
		err := syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		if errors.Is(err, syscall.ESRCH) {
			return os.ErrProcessDone
		}
		return err
	}
}
