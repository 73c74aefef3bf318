package config

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestLimitsDefaults(t *testing.T) {
	c, err := load(t, loadCase{})
	require.NoError(t, err)
	assert.Equal(t, ToolLimits{
		Processes: DefaultLimitProcesses, CPUTime: DefaultLimitCPUTime, MemoryBytes: DefaultLimitMemoryBytes,
		TmpBytes: DefaultLimitTmpBytes, FileBytes: DefaultLimitFileBytes, GrowthBytes: DefaultLimitGrowthBytes,
		WorkspaceBytes: DefaultLimitWorkspaceBytes,
	}, c.Tools.Limits)
	assert.Equal(t, DefaultOutputsMaxPlanBytes, c.Outputs.MaxPlanBytes)
	assert.Equal(t, DefaultOutputsMaxBytes, c.Outputs.MaxBytes)
	assert.Equal(t, 168*time.Hour, c.Outputs.Retention)
	assert.Equal(t, DefaultSnapshotDir(), c.Workspace.SnapshotDir)
}

func TestLimitsFromFileAndEnv(t *testing.T) {
	file := `
tools:
  limits:
    processes: 32
    memoryBytes: 1073741824
    fileBytes: 1048576
outputs:
  maxBytes: 8589934592
  retention: 24h
workspace:
  snapshotDir: snaps
`
	c, err := load(t, loadCase{file: file, env: map[string]string{
		"PLANMODE_TOOLS_LIMITS_PROCESSES":      "64",
		"PLANMODE_TOOLS_LIMITS_CPUTIME":        "30s",
		"PLANMODE_TOOLS_LIMITS_TMPBYTES":       "1048576",
		"PLANMODE_TOOLS_LIMITS_GROWTHBYTES":    "2097152",
		"PLANMODE_TOOLS_LIMITS_WORKSPACEBYTES": "10737418240",
		"PLANMODE_OUTPUTS_MAXPLANBYTES":        "5368709120",
	}})
	require.NoError(t, err)
	assert.Equal(t, ToolLimits{Processes: 64, CPUTime: 30 * time.Second, MemoryBytes: 1 << 30, TmpBytes: 1 << 20,
		FileBytes: 1 << 20, GrowthBytes: 2 << 20, WorkspaceBytes: 10 << 30}, c.Tools.Limits, "the variable wins over the file")
	assert.Equal(t, int64(5<<30), c.Outputs.MaxPlanBytes, "past 32 bits")
	assert.Equal(t, int64(8<<30), c.Outputs.MaxBytes)
	assert.Equal(t, 24*time.Hour, c.Outputs.Retention)
	wd, err := os.Getwd()
	require.NoError(t, err)
	assert.Equal(t, filepath.Join(wd, "snaps"), c.Workspace.SnapshotDir, "made absolute")
}

func TestLimitsRefused(t *testing.T) {
	taken := filepath.Join(t.TempDir(), "taken")
	require.NoError(t, os.WriteFile(taken, []byte("x"), 0o600))
	cases := []struct {
		name    string
		file    string
		env     map[string]string
		wantErr string
	}{
		{name: "negative processes", env: map[string]string{"PLANMODE_TOOLS_LIMITS_PROCESSES": "-1"},
			wantErr: "tools.limits.processes must not be negative"},
		{name: "negative cpu time", file: "tools:\n  limits:\n    cpuTime: -1s\n", wantErr: "tools.limits.cpuTime must not be negative"},
		{name: "negative sizes", file: "tools:\n  limits:\n    memoryBytes: -1\n    tmpBytes: -1\n    fileBytes: -1\n" +
			"    growthBytes: -1\n    workspaceBytes: -1\n",
			wantErr: "tools.limits.memoryBytes must not be negative (0 takes the default); tools.limits.tmpBytes must not be negative"},
		{name: "negative workspace bytes", env: map[string]string{"PLANMODE_TOOLS_LIMITS_WORKSPACEBYTES": "-5"},
			wantErr: "tools.limits.workspaceBytes must not be negative"},
		{name: "size not a number", env: map[string]string{"PLANMODE_TOOLS_LIMITS_MEMORYBYTES": "2GiB"},
			wantErr: "tools.limits.memoryBytes (PLANMODE_TOOLS_LIMITS_MEMORYBYTES or the file)"},
		{name: "misspelt limit", file: "tools:\n  limits:\n    procs: 3\n", wantErr: "unknown key tools.limits.procs"},
		{name: "negative plan cap", env: map[string]string{"PLANMODE_OUTPUTS_MAXPLANBYTES": "-1"},
			wantErr: "outputs.maxPlanBytes must not be negative"},
		{name: "negative store cap", env: map[string]string{"PLANMODE_OUTPUTS_MAXBYTES": "-1"},
			wantErr: "outputs.maxBytes must not be negative"},
		{name: "negative retention", env: map[string]string{"PLANMODE_OUTPUTS_RETENTION": "-1h"},
			wantErr: "outputs.retention must not be negative (0 keeps outputs for ever)"},
		{name: "plan cap above the store's", env: map[string]string{"PLANMODE_OUTPUTS_MAXPLANBYTES": "5368709120"},
			wantErr: "outputs.maxPlanBytes 5368709120 must not exceed outputs.maxBytes 4294967296"},
		{name: "snapshot folder is a file", env: map[string]string{"PLANMODE_WORKSPACE_SNAPSHOTDIR": taken},
			wantErr: "workspace.snapshotDir \"" + taken + "\" is not a folder"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := load(t, loadCase{file: tc.file, env: tc.env})
			require.Error(t, err)
			assert.Contains(t, err.Error(), tc.wantErr)
		})
	}
}

func TestZeroLimitsTakeTheDefaults(t *testing.T) {
	_, err := load(t, loadCase{file: "tools:\n  limits:\n    processes: 0\noutputs:\n  maxBytes: 0\n  maxPlanBytes: 0\n  retention: 0s\n"})
	require.NoError(t, err, "zero is the default, not an error")
}

func TestNegativeWorkspaceLimitsAreRefused(t *testing.T) {
	c := Config{Workspace: Workspace{MaxFiles: -1, SnapshotLimit: -1}}
	err := c.Validate()
	require.Error(t, err)
	assert.Contains(t, err.Error(), KeyMaxFiles+" must not be negative")
	assert.Contains(t, err.Error(), KeySnapshotLimit+" must not be negative")
}
