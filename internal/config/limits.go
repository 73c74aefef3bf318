package config

import (
	"fmt"
	"time"
)

// ToolLimits bound what one tool call may consume (tools.limits): the
// tools package's Limits, spelt here so that the CLI need not import the
// tools. Zero takes the default; no limit can be turned off, only raised.
type ToolLimits struct {
	// Processes bounds the processes and threads alive at once in one
	// command's sandbox.
	Processes int `mapstructure:"processes"`
	// CPUTime bounds the CPU time of one command's processes.
	CPUTime time.Duration `mapstructure:"cpuTime"`
	// MemoryBytes bounds the memory of one command.
	MemoryBytes int64 `mapstructure:"memoryBytes"`
	// TmpBytes is the size of the sandbox's private /tmp, held in memory.
	TmpBytes int64 `mapstructure:"tmpBytes"`
	// FileBytes is the largest file a command may write.
	FileBytes int64 `mapstructure:"fileBytes"`
	// GrowthBytes is how much one tool call may grow the workspace by.
	GrowthBytes int64 `mapstructure:"growthBytes"`
	// WorkspaceBytes is the largest a workspace may grow to through the
	// tools.
	WorkspaceBytes int64 `mapstructure:"workspaceBytes"`
}

// Keys of the limits.
const (
	KeyLimitProcesses      = "tools.limits.processes"
	KeyLimitCPUTime        = "tools.limits.cpuTime"
	KeyLimitMemoryBytes    = "tools.limits.memoryBytes"
	KeyLimitTmpBytes       = "tools.limits.tmpBytes"
	KeyLimitFileBytes      = "tools.limits.fileBytes"
	KeyLimitGrowthBytes    = "tools.limits.growthBytes"
	KeyLimitWorkspaceBytes = "tools.limits.workspaceBytes"
	KeyOutputsMaxPlanBytes = "outputs.maxPlanBytes"
	KeyOutputsMaxBytes     = "outputs.maxBytes"
	KeyOutputsRetention    = "outputs.retention"
	KeySnapshotDir         = "workspace.snapshotDir"
	KeyStore               = "workspace.store"
	KeyStoreAccessKeyFile  = "workspace.storeAccessKeyFile"
	KeyStoreSecretKeyFile  = "workspace.storeSecretKeyFile"
	KeyMaxFiles            = "workspace.maxFiles"
	KeySnapshotLimit       = "workspace.snapshotLimit"
)

// Defaults of the limits: the tools' Default* and the outputs package's
// (a worker test keeps them equal).
const (
	DefaultLimitProcesses      = 256
	DefaultLimitCPUTime        = 10 * time.Minute
	DefaultLimitMemoryBytes    = int64(2 << 30)
	DefaultLimitTmpBytes       = int64(256 << 20)
	DefaultLimitFileBytes      = int64(1 << 30)
	DefaultLimitGrowthBytes    = int64(1 << 30)
	DefaultLimitWorkspaceBytes = int64(4 << 30)
	// DefaultOutputsMaxPlanBytes bounds the full outputs kept for one plan.
	DefaultOutputsMaxPlanBytes = int64(256 << 20)
	// DefaultOutputsMaxBytes bounds every plan's full outputs together.
	DefaultOutputsMaxBytes = int64(4 << 30)
	// DefaultOutputsRetention keeps a plan's full outputs for a week, as
	// its snapshots.
	DefaultOutputsRetention = 168 * time.Hour
)

// limitsDefaults returns the defaults of the limits' keys.
func limitsDefaults() map[string]any {
	return map[string]any{
		KeyLimitProcesses:      DefaultLimitProcesses,
		KeyLimitCPUTime:        DefaultLimitCPUTime,
		KeyLimitMemoryBytes:    DefaultLimitMemoryBytes,
		KeyLimitTmpBytes:       DefaultLimitTmpBytes,
		KeyLimitFileBytes:      DefaultLimitFileBytes,
		KeyLimitGrowthBytes:    DefaultLimitGrowthBytes,
		KeyLimitWorkspaceBytes: DefaultLimitWorkspaceBytes,
		KeyOutputsMaxPlanBytes: DefaultOutputsMaxPlanBytes,
		KeyOutputsMaxBytes:     DefaultOutputsMaxBytes,
		KeyOutputsRetention:    DefaultOutputsRetention,
	}
}

// problems refuses negative limits; zero takes the default.
func (l ToolLimits) problems() []string {
	var errs []string
	for _, c := range []struct {
		key      string
		negative bool
	}{
		{KeyLimitProcesses, l.Processes < 0},
		{KeyLimitCPUTime, l.CPUTime < 0},
		{KeyLimitMemoryBytes, l.MemoryBytes < 0},
		{KeyLimitTmpBytes, l.TmpBytes < 0},
		{KeyLimitFileBytes, l.FileBytes < 0},
		{KeyLimitGrowthBytes, l.GrowthBytes < 0},
		{KeyLimitWorkspaceBytes, l.WorkspaceBytes < 0},
	} {
		if c.negative {
			errs = append(errs, fmt.Sprintf("%s must not be negative (0 takes the default)", c.key))
		}
	}
	return errs
}

// capProblems refuses negative caps and a plan's cap above the store's;
// zero takes the default, a zero retention keeps outputs for ever.
func (o Outputs) capProblems() []string {
	var errs []string
	if o.MaxPlanBytes < 0 {
		errs = append(errs, fmt.Sprintf("%s must not be negative (0 takes the default)", KeyOutputsMaxPlanBytes))
	}
	if o.MaxBytes < 0 {
		errs = append(errs, fmt.Sprintf("%s must not be negative (0 takes the default)", KeyOutputsMaxBytes))
	}
	if o.Retention < 0 {
		errs = append(errs, fmt.Sprintf("%s must not be negative (0 keeps outputs for ever)", KeyOutputsRetention))
	}
	plan, total := orDefault(o.MaxPlanBytes, DefaultOutputsMaxPlanBytes), orDefault(o.MaxBytes, DefaultOutputsMaxBytes)
	if len(errs) == 0 && plan > total {
		errs = append(errs, fmt.Sprintf("%s %d must not exceed %s %d", KeyOutputsMaxPlanBytes, plan, KeyOutputsMaxBytes, total))
	}
	return errs
}

// orDefault returns v, or def when v is zero.
func orDefault(v, def int64) int64 {
	if v == 0 {
		return def
	}
	return v
}
