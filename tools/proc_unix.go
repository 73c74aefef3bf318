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

// exitBreach returns the limit whose signal ended the command, as its exit
// says: SIGXFSZ for the file size, SIGXCPU (or the SIGKILL a second later,
// for a process that ignored it, when the command used that much CPU time
// and the worker did not kill it itself) for the CPU time, on the process
// itself or in an exit code of 128+n, which is how bubblewrap and shells
// report a child's death by signal n. nil when none.
func exitBreach(state *os.ProcessState, l Limits, killed bool) *limitBreach {
	if state == nil {
		return nil
	}
	var sig syscall.Signal
	if ws, ok := state.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		sig = ws.Signal()
	} else if code := state.ExitCode(); code > 128 && code <= 128+64 {
		sig = syscall.Signal(code - 128)
	}
	switch {
	case sig == syscall.SIGXFSZ:
		return fileBreach(l)
	case sig == syscall.SIGXCPU, sig == syscall.SIGKILL && !killed && state.UserTime()+state.SystemTime() >= l.CPUTime:
		return cpuBreach(l)
	}
	return nil
}
