package tools

import (
	"fmt"
	"time"
)

// Defaults of [Limits]: generous for builds and test runs, small enough
// that one command cannot take the worker's machine down with it.
const (
	DefaultProcesses      = 256
	DefaultCPUTime        = 10 * time.Minute
	DefaultMemoryBytes    = 2 << 30
	DefaultTmpBytes       = 256 << 20
	DefaultFileBytes      = 1 << 30
	DefaultGrowthBytes    = 1 << 30
	DefaultWorkspaceBytes = 4 << 30
)

// Limits bound what one tool call may consume (tools.limits). A zero field
// takes its default; there is no way to turn a limit off, only to raise it.
type Limits struct {
	// Processes bounds the processes and threads alive at once in one
	// command's sandbox: a fork bomb ends the command, not the host.
	Processes int
	// CPUTime bounds the CPU time of each of one command's processes.
	CPUTime time.Duration
	// MemoryBytes bounds the memory of one command: of all its processes
	// together with a cgroup, of each one's address space without.
	MemoryBytes int64
	// TmpBytes is the size of the sandbox's private /tmp, which is held in
	// memory.
	TmpBytes int64
	// FileBytes is the largest file a command may write.
	FileBytes int64
	// GrowthBytes is how much one tool call (a command, a write) may grow
	// the workspace by.
	GrowthBytes int64
	// WorkspaceBytes is the largest a workspace may grow to through the
	// tools; a call that would pass it fails and leaves the workspace as
	// it was before the call's last write.
	WorkspaceBytes int64
}

// withDefaults fills the zero fields.
func (l Limits) withDefaults() Limits {
	l.Processes = orDefault(l.Processes, DefaultProcesses)
	l.CPUTime = orDefault(l.CPUTime, DefaultCPUTime)
	l.MemoryBytes = orDefault(l.MemoryBytes, DefaultMemoryBytes)
	l.TmpBytes = orDefault(l.TmpBytes, DefaultTmpBytes)
	l.FileBytes = orDefault(l.FileBytes, DefaultFileBytes)
	l.GrowthBytes = orDefault(l.GrowthBytes, DefaultGrowthBytes)
	l.WorkspaceBytes = orDefault(l.WorkspaceBytes, DefaultWorkspaceBytes)
	return l
}

// orDefault returns v, or def when v is zero or negative: the rule every
// size, count and duration of [Config] and [Limits] follows.
func orDefault[T ~int | ~int64](v, def T) T {
	if v <= 0 {
		return def
	}
	return v
}

// limitMechanism is how processes and memory are bounded.
type limitMechanism string

// Limit mechanisms, best first.
const (
	limitsByCgroup2 limitMechanism = "cgroup v2"
	limitsByCgroup1 limitMechanism = "cgroup v1"
	limitsByRlimits limitMechanism = "rlimits and a watchdog"
)

// limitBreach is a limit a command passed. It ends the command, which
// fails with a [*ToolError] that names the limit and its setting.
type limitBreach struct {
	msg string
	// workspace is set for the workspace's limits: the error then says
	// what the workspace holds once the command ended.
	workspace bool
}

func (b *limitBreach) Error() string { return b.msg }

func processBreach(l Limits) *limitBreach {
	return &limitBreach{msg: fmt.Sprintf("the command passed the limit of %d processes (tools.limits.processes)",
		l.Processes)}
}

// memoryBreach says a process was killed at the memory limit; guessed
// says the limit is an address space one and the command failed the way
// programs fail when an allocation does.
func memoryBreach(l Limits, guessed bool) *limitBreach {
	if guessed {
		return &limitBreach{msg: fmt.Sprintf("the command failed short of memory: each of its processes may "+
			"reserve up to the memory limit of %s (tools.limits.memoryBytes) of address space", byteSize(l.MemoryBytes))}
	}
	return &limitBreach{msg: fmt.Sprintf("the command passed the memory limit of %s (tools.limits.memoryBytes) "+
		"and a process of it was killed", byteSize(l.MemoryBytes))}
}

func cpuBreach(l Limits) *limitBreach {
	return &limitBreach{msg: fmt.Sprintf("a process of the command passed the CPU time limit of %s "+
		"(tools.limits.cpuTime) and was killed", l.CPUTime)}
}

func fileBreach(l Limits) *limitBreach {
	return &limitBreach{msg: fmt.Sprintf("the command tried to write a file over the file size limit of %s "+
		"(tools.limits.fileBytes) and was killed", byteSize(l.FileBytes))}
}

// workspaceBreach returns the workspace limit that a workspace of size
// bytes passes, having held base before the command; nil when none. A
// workspace already over its limit may shrink: only growth past it counts.
func workspaceBreach(l Limits, base, size int64) *limitBreach {
	switch {
	case size-base > l.GrowthBytes:
		return &limitBreach{workspace: true, msg: fmt.Sprintf("the command grew the workspace by %s, over "+
			"the limit of %s (tools.limits.growthBytes)", byteSize(size-base), byteSize(l.GrowthBytes))}
	case size > l.WorkspaceBytes && size > base:
		return &limitBreach{workspace: true, msg: fmt.Sprintf("the workspace reached %s, over the limit of %s "+
			"(tools.limits.workspaceBytes)", byteSize(size), byteSize(l.WorkspaceBytes))}
	}
	return nil
}

// byteSize renders n bytes for messages: "64 MiB", "1.5 GiB", "512 bytes".
func byteSize(n int64) string {
	for _, u := range []struct {
		size int64
		name string
	}{{1 << 30, "GiB"}, {1 << 20, "MiB"}, {1 << 10, "KiB"}} {
		switch {
		case n >= u.size && n%u.size == 0:
			return fmt.Sprintf("%d %s", n/u.size, u.name)
		case n >= u.size:
			return fmt.Sprintf("%.1f %s", float64(n)/float64(u.size), u.name)
		}
	}
	return fmt.Sprintf("%d bytes", n)
}
