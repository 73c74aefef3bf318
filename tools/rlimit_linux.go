package tools

import (
	"fmt"
	"os"
	"syscall"
	"unsafe"
)

// rlimitNproc is RLIMIT_NPROC, which package syscall does not name: 6 on
// every architecture Go builds bubblewrap's hosts for but MIPS and SPARC.
const rlimitNproc = 6

// rlimit is one resource limit to set.
type rlimit struct {
	resource int
	limit    syscall.Rlimit
}

// setRlimits sets the resource limits of the process pid, a command's
// gated first process, which every process of the command inherits: CPU
// time (a second's grace between SIGXCPU and SIGKILL), file size, no core
// files (a core dump would land in the workspace) and, where no cgroup
// bounds them, address space and, for a worker that is not root in a user
// namespace of the command's own, processes (the kernel exempts root, and
// elsewhere the count would take in all of the worker's user's
// processes). Package syscall sets limits only for the whole worker, so
// this is prlimit(2) on the child.
func (s CommandSandbox) setRlimits(pid int) error {
	l := s.limits
	cpu := uint64((l.CPUTime + 999_999_999) / 1_000_000_000)
	set := []rlimit{
		{syscall.RLIMIT_CPU, syscall.Rlimit{Cur: cpu, Max: cpu + 1}},
		{syscall.RLIMIT_FSIZE, syscall.Rlimit{Cur: uint64(l.FileBytes), Max: uint64(l.FileBytes)}},
		{syscall.RLIMIT_CORE, syscall.Rlimit{}},
	}
	if s.via == limitsByRlimits {
		set = append(set, rlimit{syscall.RLIMIT_AS, syscall.Rlimit{Cur: uint64(l.MemoryBytes), Max: uint64(l.MemoryBytes)}})
		if os.Getuid() != 0 && s.ownPID {
			set = append(set, rlimit{rlimitNproc, syscall.Rlimit{Cur: uint64(l.Processes), Max: uint64(l.Processes)}})
		}
	}
	for _, r := range set {
		_, _, errno := syscall.RawSyscall6(syscall.SYS_PRLIMIT64, uintptr(pid), uintptr(r.resource),
			uintptr(unsafe.Pointer(&r.limit)), 0, 0, 0)
		if errno != 0 {
			return fmt.Errorf("set resource limit %d of the command: %w", r.resource, errno)
		}
	}
	return nil
}
