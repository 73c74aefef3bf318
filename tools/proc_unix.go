//go:build unix

package tools

import (
	"errors"
	"os"
	"os/exec"
	"syscall"
)

// isolate puts the command in its own process group and makes cancellation
// kill the whole group, so children it started die with it.
func isolate(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error {
		err := syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		if errors.Is(err, syscall.ESRCH) {
			return os.ErrProcessDone
		}
		return err
	}
}
