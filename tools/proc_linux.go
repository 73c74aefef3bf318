package tools

import (
	"os"
	"os/exec"
	"syscall"
)

// setParentDeathSignal makes the kernel SIGKILL the process when the
// thread that started it ends (see startLocked).
func setParentDeathSignal(attr *syscall.SysProcAttr) {
	attr.Pdeathsig = syscall.SIGKILL
}

// ownPIDNamespace makes the process cmd starts (after isolate) the init of a new PID
// namespace, inside a new user namespace where the worker's user is root
// (which needs no privilege). When an init dies, however it dies, the
// kernel kills every process of its namespace, nested namespaces
// included. bubblewrap started so takes the whole sandbox with it when the
// worker dies or cancels: its own --die-with-parent leaves a gap, since the
// sandbox's init asks for its parent-death signal a moment after it
// starts, and a parent that died in that moment leaves it running.
func ownPIDNamespace(cmd *exec.Cmd) {
	attr := cmd.SysProcAttr
	attr.Cloneflags |= syscall.CLONE_NEWUSER | syscall.CLONE_NEWPID
	attr.UidMappings = []syscall.SysProcIDMap{{ContainerID: 0, HostID: os.Getuid(), Size: 1}}
	attr.GidMappings = []syscall.SysProcIDMap{{ContainerID: 0, HostID: os.Getgid(), Size: 1}}
	attr.GidMappingsEnableSetgroups = false
}
