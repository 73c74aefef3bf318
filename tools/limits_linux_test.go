package tools

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The attacks here are each bounded in count, size and time, so that a
// failed defence costs the machine little: at most 500 sleeping processes,
// 512 MiB of memory, 64 MiB of disk and the command timeout of CPU.

// limitTimeout bounds every attack: without its defence an attack ends
// at this timeout, and the test fails on the message.
const limitTimeout = 20 * time.Second

// limitMechanisms returns how the tests configure each way of enforcing
// the limits this host offers: the one detection picks, and the fallback
// (rlimits and a watchdog), which every Linux host has.
func limitMechanisms(t *testing.T) map[string]func(*Config) {
	t.Helper()
	requireCommandSandbox(t)
	requireBinary(t, "sh", "head", "tail", "sleep")
	return map[string]func(*Config){
		"detected": func(*Config) {},
		"rlimits":  func(c *Config) { c.limitsVia = limitsByRlimits },
	}
}

// limitConfig is attackConfig with a short timeout and the given limits.
func limitConfig(l Limits, mech func(*Config)) Config {
	cfg := attackConfig()
	cfg.CommandTimeout = limitTimeout
	cfg.Limits = l.withDefaults()
	mech(&cfg)
	return cfg
}

// runScript runs script with sh -c through run_command and returns the
// output, how long it took and the error.
func runScript(t *testing.T, cfg Config, sb *Sandbox, script string) (string, time.Duration, error) {
	t.Helper()
	start := time.Now()
	out, err := runArgv(t, Builtin(cfg), sb, "sh", "-c", script)
	return out, time.Since(start), err
}

// workerState is what a command must not change about the worker: its
// resource limits and its cgroups.
func workerState(t *testing.T) string {
	t.Helper()
	var b strings.Builder
	for _, r := range []int{syscall.RLIMIT_CPU, syscall.RLIMIT_FSIZE, syscall.RLIMIT_AS, rlimitNproc} {
		var l syscall.Rlimit
		require.NoError(t, syscall.Getrlimit(r, &l))
		fmt.Fprintf(&b, "%d:%d/%d ", r, l.Cur, l.Max)
	}
	cg, err := os.ReadFile("/proc/self/cgroup")
	require.NoError(t, err)
	return b.String() + string(cg)
}

// leftCgroups returns the cgroups of this process's commands still in
// place under /sys/fs/cgroup.
func leftCgroups(t *testing.T) []string {
	t.Helper()
	prefix := fmt.Sprintf("planmode-%d-", os.Getpid())
	var left []string
	_ = filepath.WalkDir("/sys/fs/cgroup", func(p string, d fs.DirEntry, err error) error {
		if err != nil || !d.IsDir() {
			return nil
		}
		if strings.HasPrefix(d.Name(), prefix) {
			left = append(left, p)
		}
		if strings.Count(p, "/") > 8 {
			return fs.SkipDir
		}
		return nil
	})
	return left
}

// hostProcesses counts the processes of the whole machine.
func hostProcesses() int {
	dirs, _ := filepath.Glob("/proc/[0-9]*")
	return len(dirs)
}

// checkWorkerUnharmed asserts, once the test ends, that the worker's limits
// and cgroups are as they were and no cgroup of a command is left.
func checkWorkerUnharmed(t *testing.T) {
	t.Helper()
	before := workerState(t)
	t.Cleanup(func() {
		assert.Equal(t, before, workerState(t), "the worker's own limits and cgroups are untouched")
		assert.Empty(t, leftCgroups(t), "every command's cgroup is removed")
	})
}

func TestForkBombEndsTheCommand(t *testing.T) {
	for name, mech := range limitMechanisms(t) {
		t.Run(name, func(t *testing.T) {
			checkWorkerUnharmed(t)
			marker := fmt.Sprintf("%d.%d", 4000+os.Getpid()%1000, time.Now().UnixNano()%1000000)
			t.Cleanup(func() { killAll(processesWith(marker)) })
			before := hostProcesses()
			bomb := "i=0; while [ $i -lt 500 ]; do sleep " + marker + " & i=$((i+1)); done; wait"
			_, took, err := runScript(t, limitConfig(Limits{Processes: 32}, mech), newWorkspace(t, nil), bomb)
			requireToolError(t, err, "the command passed the limit of 32 processes (tools.limits.processes)")
			assert.Less(t, took, limitTimeout/2, "the command was stopped, not left to its timeout")
			require.Eventually(t, func() bool { return len(processesWith(marker)) == 0 }, 10*time.Second,
				20*time.Millisecond, "a process of the fork bomb survived")
			assert.Eventually(t, func() bool { return hostProcesses() < before+50 }, 10*time.Second,
				20*time.Millisecond, "the machine's process count is back (%d before)", before)
		})
	}
}

func TestWorkspaceGrowthStopsTheCommand(t *testing.T) {
	const mib = 1 << 20
	tests := []struct {
		name   string
		limits Limits
		files  map[string]string
		script string
		left   string
		want   []string
	}{
		{name: "killed while it grows", limits: Limits{GrowthBytes: 8 * mib},
			script: "head -c 67108864 /dev/zero > big; sleep 30", left: "big",
			want: []string{"over the limit of 8 MiB (tools.limits.growthBytes)", "(0 bytes before the command)"}},
		{name: "found when it ends", limits: Limits{GrowthBytes: 8 * mib},
			script: "head -c 67108864 /dev/zero > big", left: "big",
			want: []string{"over the limit of 8 MiB (tools.limits.growthBytes)", "(0 bytes before the command)"}},
		{name: "the whole workspace", limits: Limits{WorkspaceBytes: 8 * mib},
			files:  map[string]string{"old": strings.Repeat("x", 4*mib)},
			script: "head -c 6291456 /dev/zero > new; sleep 30", left: "new",
			want: []string{"over the limit of 8 MiB (tools.limits.workspaceBytes)", "(4 MiB before the command)"}},
	}
	for name, mech := range limitMechanisms(t) {
		for _, tt := range tests {
			t.Run(name+"/"+tt.name, func(t *testing.T) {
				checkWorkerUnharmed(t)
				sb := newWorkspace(t, tt.files)
				_, took, err := runScript(t, limitConfig(tt.limits, mech), sb, tt.script)
				for _, w := range tt.want {
					requireToolError(t, err, w)
				}
				assert.Less(t, took, limitTimeout/2, "the command was stopped, not left to its timeout")
				assert.FileExists(t, filepath.Join(sb.Root(), tt.left), "removing the files is the plan's rollback's")
				now, merr := sb.measure()
				require.NoError(t, merr)
				assert.Contains(t, err.Error(), "the workspace now holds "+byteSize(now)+" (", "the error says what is left")
			})
		}
	}
}

func TestFileSizeLimit(t *testing.T) {
	for name, mech := range limitMechanisms(t) {
		t.Run(name, func(t *testing.T) {
			checkWorkerUnharmed(t)
			sb := newWorkspace(t, nil)
			_, _, err := runScript(t, limitConfig(Limits{FileBytes: 1 << 20}, mech), sb, "head -c 4194304 /dev/zero > f")
			requireToolError(t, err, "the file size limit of 1 MiB (tools.limits.fileBytes)")
			fi, statErr := os.Stat(filepath.Join(sb.Root(), "f"))
			require.NoError(t, statErr)
			assert.LessOrEqual(t, fi.Size(), int64(1<<20))
		})
	}
}

func TestTmpIsBounded(t *testing.T) {
	for name, mech := range limitMechanisms(t) {
		t.Run(name, func(t *testing.T) {
			checkWorkerUnharmed(t)
			out, _, err := runScript(t, limitConfig(Limits{TmpBytes: 4 << 20}, mech), newWorkspace(t, nil),
				"head -c 8388608 /dev/zero > /tmp/f; echo status $?")
			require.NoError(t, err)
			assert.Contains(t, out, "No space left on device", "the write fails inside the command")
			assert.Contains(t, out, "status 1")
		})
	}
}

func TestCPUTimeLimit(t *testing.T) {
	for name, mech := range limitMechanisms(t) {
		t.Run(name, func(t *testing.T) {
			checkWorkerUnharmed(t)
			_, took, err := runScript(t, limitConfig(Limits{CPUTime: time.Second}, mech), newWorkspace(t, nil),
				"while :; do :; done")
			requireToolError(t, err, "the CPU time limit of 1s (tools.limits.cpuTime)")
			assert.Less(t, took, limitTimeout/2, "the command was stopped, not left to its timeout")
		})
	}
}

func TestMemoryLimit(t *testing.T) {
	for name, mech := range limitMechanisms(t) {
		t.Run(name, func(t *testing.T) {
			checkWorkerUnharmed(t)
			// tail keeps a line whole; /dev/zero has no line end.
			_, _, err := runScript(t, limitConfig(Limits{MemoryBytes: 64 << 20}, mech), newWorkspace(t, nil),
				"head -c 536870912 /dev/zero | tail")
			requireToolError(t, err, "the memory limit of 64 MiB (tools.limits.memoryBytes)")
		})
	}
}

func TestSandboxShowsPlanmodesGitconfig(t *testing.T) {
	requireCommandSandbox(t)
	host, _ := os.ReadFile("/etc/gitconfig") // a canary when the host has one
	out, err := runArgv(t, Builtin(attackConfig()), newWorkspace(t, nil), "cat", "/etc/gitconfig")
	require.NoError(t, err)
	assert.Equal(t, sandboxGitconfig, out, "the sandbox's /etc/gitconfig is planmode's")
	if len(strings.TrimSpace(string(host))) > 0 {
		assert.NotContains(t, out, strings.TrimSpace(string(host)), "the host's /etc/gitconfig is not shown")
	}
	assert.NotContains(t, out, "credential")
}

func TestSandboxSaysHowItLimits(t *testing.T) {
	requireCommandSandbox(t)
	s, err := DetectCommandSandbox(DefaultConfig())
	require.NoError(t, err)
	t.Log(s.String())
	if _, cgErr := detectCgroups(); cgErr == nil {
		assert.Regexp(t, `limits \(tools.limits\) by cgroup v[12]: 256 processes and 2 GiB of memory per command`, s.String())
	} else {
		assert.Contains(t, s.String(), "by rlimits and a watchdog", "no cgroup here: %v", cgErr)
	}
	cfg := DefaultConfig()
	cfg.limitsVia = limitsByRlimits
	s, err = DetectCommandSandbox(cfg)
	require.NoError(t, err)
	assert.Contains(t, s.String(), "limits (tools.limits) by rlimits and a watchdog: 256 processes per command")
	assert.Contains(t, s.String(), "a /tmp of 256 MiB")
}

func TestCommandsRunUnderTheirRlimits(t *testing.T) {
	for name, mech := range limitMechanisms(t) {
		t.Run(name, func(t *testing.T) {
			cfg := limitConfig(Limits{CPUTime: 7 * time.Second, FileBytes: 5 << 20, MemoryBytes: 3 << 30}, mech)
			cfg.AllowCommands = []string{"cat"}
			out, err := runArgv(t, Builtin(cfg), newWorkspace(t, nil), "cat", "/proc/self/limits")
			require.NoError(t, err)
			assert.Regexp(t, `Max cpu time\s+7\s+8\s+seconds`, out)
			assert.Regexp(t, `Max file size\s+5242880\s+5242880\s+bytes`, out)
			assert.Regexp(t, `Max core file size\s+0\s+0\s+bytes`, out)
			if name == "rlimits" {
				assert.Regexp(t, `Max address space\s+3221225472\s+3221225472\s+bytes`, out)
			}
		})
	}
}

func TestNothingRunsBeforeTheGateOpens(t *testing.T) {
	requireCommandSandbox(t)
	s, err := DetectCommandSandbox(attackConfig())
	require.NoError(t, err)
	sb := newWorkspace(t, nil)
	cmd, g, err := s.command(t.Context(), sb.Root(), s.env(Config{}, sb.Root(), os.LookupEnv), "touch", []string{"ran"})
	require.NoError(t, err)
	done, err := startLocked(cmd)
	require.NoError(t, err)
	g.close() // the worker gives up before opening it
	require.Error(t, <-done, "the gate's shell exits when no line comes")
	assert.NoFileExists(t, filepath.Join(sb.Root(), "ran"))
}
