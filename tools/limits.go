package tools

import "time"

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
	// CPUTime bounds the CPU time of one command's processes.
	CPUTime time.Duration
	// MemoryBytes bounds the memory of one command.
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
	if l.Processes <= 0 {
		l.Processes = DefaultProcesses
	}
	if l.CPUTime <= 0 {
		l.CPUTime = DefaultCPUTime
	}
	if l.MemoryBytes <= 0 {
		l.MemoryBytes = DefaultMemoryBytes
	}
	if l.TmpBytes <= 0 {
		l.TmpBytes = DefaultTmpBytes
	}
	if l.FileBytes <= 0 {
		l.FileBytes = DefaultFileBytes
	}
	if l.GrowthBytes <= 0 {
		l.GrowthBytes = DefaultGrowthBytes
	}
	if l.WorkspaceBytes <= 0 {
		l.WorkspaceBytes = DefaultWorkspaceBytes
	}
	return l
}
