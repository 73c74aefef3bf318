package tools

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// workerSwitch names the variable that makes the test binary act as the
// worker process of the test named by its value.
const workerSwitch = "PLANMODE_TOOLS_TEST_WORKER"

// asWorker runs the calling top-level test again in a child process whose
// initial environment also holds env, the way a worker's holds its secrets:
// t.Setenv would not show in /proc/<pid>/environ, which only ever shows
// what a process started with. It returns true in the child, which runs
// the test's body; the parent waits for the child, fails when it failed
// and returns false.
func asWorker(t *testing.T, env ...string) bool {
	t.Helper()
	if os.Getenv(workerSwitch) == t.Name() {
		return true
	}
	cmd := exec.Command(os.Args[0], "-test.run=^"+regexp.QuoteMeta(t.Name())+"$", "-test.count=1", "-test.v")
	cmd.Env = append(append(os.Environ(), workerSwitch+"="+t.Name()), env...)
	out, err := cmd.CombinedOutput()
	switch {
	case err != nil:
		t.Fatalf("the worker process failed: %v\n%s", err, out)
	case strings.Contains(string(out), "--- SKIP: "+t.Name()):
		t.Skipf("the worker process skipped:\n%s", out)
	case !strings.Contains(string(out), "--- PASS: "+t.Name()):
		t.Fatalf("the worker process did not run the test:\n%s", out)
	}
	t.Logf("worker process:\n%s", out)
	return false
}

// attackConfig is the default configuration with the programs the attacks
// use allowed: the allowlist is no boundary (make or go run run anything),
// so the attacks may as well call what they need directly.
func attackConfig() Config {
	cfg := DefaultConfig()
	cfg.AllowCommands = []string{"cat", "ls", "env", "touch", "sh", "bash", "make"}
	return cfg
}

// runArgv runs argv through run_command of reg in sb and returns its output
// and error, whichever it is.
func runArgv(t *testing.T, reg *Registry, sb *Sandbox, argv ...string) (string, error) {
	t.Helper()
	raw, err := json.Marshal(map[string]any{"command": argv[0], "args": argv[1:]})
	require.NoError(t, err)
	res, err := call(t, reg, sb, "run_command", string(raw))
	out := res.Output
	if err != nil {
		out += "\n" + err.Error()
	}
	return out, err
}

func TestCommandsCannotReachTheWorker(t *testing.T) {
	canary := fmt.Sprintf("canary-%d-%d", os.Getpid(), time.Now().UnixNano())
	if !asWorker(t, "PLANMODE_LLM_APIKEY=sk-"+canary, "PLANMODE_NOTIFY_WEBHOOKSECRET="+canary,
		"DATABASE_URL=postgres://app:"+canary+"@db/app") {
		return
	}
	requireCommandSandbox(t)
	canary = strings.TrimPrefix(os.Getenv("PLANMODE_LLM_APIKEY"), "sk-")
	require.NotEmpty(t, canary)
	outside := t.TempDir()
	config := filepath.Join(outside, "planmode.yaml")
	require.NoError(t, os.WriteFile(config, []byte("llm:\n  apiKey: "+canary+"\n"), 0o600))
	sb := newWorkspace(t, nil)
	reg := Builtin(attackConfig())

	t.Run("environ of the parent", func(t *testing.T) {
		status, err := runArgv(t, reg, sb, "cat", "/proc/self/status")
		require.NoError(t, err)
		ppid := regexp.MustCompile(`(?m)^PPid:\s*(\d+)`).FindStringSubmatch(status)
		require.NotNil(t, ppid, status)
		out, _ := runArgv(t, reg, sb, "cat", "/proc/"+ppid[1]+"/environ")
		assertNoCanary(t, out, canary)
	})
	for _, tt := range []struct{ name, path string }{
		{"environ of the worker's pid", fmt.Sprintf("/proc/%d/environ", os.Getpid())},
		{"environ of pid 1", "/proc/1/environ"},
		{"the configuration outside the workspace", config},
	} {
		t.Run(tt.name, func(t *testing.T) {
			out, _ := runArgv(t, reg, sb, "cat", tt.path)
			assertNoCanary(t, out, canary)
		})
	}
	t.Run("every environ it can see", func(t *testing.T) {
		out, _ := runArgv(t, reg, sb, "sh", "-c", "cat /proc/[0-9]*/environ")
		assertNoCanary(t, out, canary)
	})
	t.Run("env", func(t *testing.T) {
		out, err := runArgv(t, reg, sb, "env")
		require.NoError(t, err)
		assertNoCanary(t, out, canary)
		assert.NotContains(t, out, "PLANMODE_", "none of the worker's settings")
		assert.NotContains(t, out, workerSwitch)
	})
	t.Run("ls /proc", func(t *testing.T) {
		out, err := runArgv(t, reg, sb, "ls", "/proc")
		require.NoError(t, err)
		pids := numericLines(out)
		assert.NotContains(t, pids, os.Getpid(), "the worker is not visible")
		assert.LessOrEqual(t, len(pids), 3, "only the sandbox's own processes: %v", pids)
	})
	t.Run("writes outside the workspace", func(t *testing.T) {
		for _, p := range []string{filepath.Join(outside, "pwned"), "/usr/local/.planmode-escape-" + canary} {
			t.Cleanup(func() { os.Remove(p) })
			_, err := runArgv(t, reg, sb, "touch", p)
			requireToolError(t, err, "exited with code 1")
			assert.NoFileExists(t, p)
		}
		_, err := runArgv(t, reg, sb, "touch", "inside")
		require.NoError(t, err)
		assert.FileExists(t, filepath.Join(sb.Root(), "inside"), "the workspace stays writable")
	})
	t.Run("a hostile Makefile", func(t *testing.T) {
		requireBinary(t, "make")
		makefile := "test:\n" +
			"\t-cat /proc/$$PPID/environ /proc/1/environ /proc/[0-9]*/environ\n" +
			"\t-env\n" +
			"\t-cat " + config + "\n" +
			"\t-touch " + filepath.Join(outside, "pwned-by-make") + "\n"
		require.NoError(t, os.WriteFile(filepath.Join(sb.Root(), "Makefile"), []byte(makefile), 0o644))
		res, err := call(t, reg, sb, "run_tests", `{}`)
		require.NoError(t, err, "make ignores the failures of - lines")
		assertNoCanary(t, res.Output, canary)
		assert.NoFileExists(t, filepath.Join(outside, "pwned-by-make"))
	})
}

// assertNoCanary fails the test when out holds the canary, quoting where
// (the outputs the attacks leak are long).
func assertNoCanary(t *testing.T, out, canary string) {
	t.Helper()
	if i := strings.Index(out, canary); i >= 0 {
		t.Errorf("the canary leaked: …%q…", out[max(0, i-200):min(len(out), i+len(canary)+50)])
	}
}

// numericLines returns the lines of out that are numbers.
func numericLines(out string) []int {
	var nums []int
	for _, l := range strings.Fields(out) {
		if n, err := strconv.Atoi(l); err == nil {
			nums = append(nums, n)
		}
	}
	return nums
}

func TestCommandsHaveNoNetworkUnlessAllowed(t *testing.T) {
	requireCommandSandbox(t)
	requireBinary(t, "bash")
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	defer ln.Close()
	port := ln.Addr().(*net.TCPAddr).Port
	connect := fmt.Sprintf("exec 3<>/dev/tcp/127.0.0.1/%d && echo connected", port)
	sb := newWorkspace(t, nil)

	out, err := runArgv(t, Builtin(attackConfig()), sb, "bash", "-c", connect)
	requireToolError(t, err, "exited with code 1")
	assert.NotRegexp(t, `(?m)^connected$`, out)
	// A connection completes before connect returns, so by now it would
	// wait in the listener's queue.
	require.NoError(t, ln.(*net.TCPListener).SetDeadline(time.Now()))
	if conn, err := ln.Accept(); err == nil {
		conn.Close()
		t.Fatal("the command reached a loopback listener of the worker's network")
	}

	cfg := attackConfig()
	cfg.Network = true
	out, err = runArgv(t, Builtin(cfg), sb, "bash", "-c", connect)
	require.NoError(t, err, "tools.network lets commands connect")
	assert.Regexp(t, `(?m)^connected$`, out)
}

func TestNoProcessOutlivesItsCommand(t *testing.T) {
	requireCommandSandbox(t)
	requireBinary(t, "sh", "sleep")
	sb := newWorkspace(t, nil)
	tests := []struct {
		name    string
		timeout time.Duration
		script  string
		reject  string
	}{
		{name: "a background process when the command ends", script: "sleep %s & echo started"},
		{name: "the whole tree on a timeout", timeout: 300 * time.Millisecond,
			script: "sleep %s & sh -c 'sleep %s'", reject: "timed out"},
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			marker := fmt.Sprintf("%d.%d%d", 3000+os.Getpid()%1000, i, time.Now().UnixNano()%100000)
			t.Cleanup(func() { killAll(processesWith(marker)) })
			cfg := attackConfig()
			cfg.CommandTimeout = tt.timeout
			_, err := runArgv(t, Builtin(cfg), sb, "sh", "-c", strings.ReplaceAll(tt.script, "%s", marker))
			if tt.reject != "" {
				requireToolError(t, err, tt.reject)
			} else {
				require.NoError(t, err)
			}
			require.Eventually(t, func() bool { return len(processesWith(marker)) == 0 }, 10*time.Second,
				20*time.Millisecond, "a process of the command survived it")
		})
	}
}

func TestCommandDiesWithTheWorker(t *testing.T) {
	requireBinary(t, "sleep")
	if os.Getenv(workerSwitch) == t.Name() {
		runUntilKilled(t, os.Getenv("MARKER"))
		return
	}
	requireCommandSandbox(t)
	// sleep's argument is the marker that finds it among all processes.
	marker := fmt.Sprintf("%d.%d", 3000+os.Getpid()%1000, time.Now().UnixNano()%1000000)
	cmd := exec.Command(os.Args[0], "-test.run=^"+t.Name()+"$", "-test.count=1")
	cmd.Env = append(os.Environ(), workerSwitch+"="+t.Name(), "MARKER="+marker)
	stdout, err := cmd.StdoutPipe()
	require.NoError(t, err)
	require.NoError(t, cmd.Start())
	t.Cleanup(func() { killAll(processesWith(marker)) })
	started := make(chan bool, 1)
	go func() {
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			if sc.Text() == "STARTED "+marker {
				started <- true
				return
			}
		}
		started <- false
	}()
	select {
	case ok := <-started:
		require.True(t, ok, "the worker process ended before its command started")
	case <-time.After(30 * time.Second):
		_ = cmd.Process.Kill()
		t.Fatal("the worker process did not start its command")
	}
	require.NotEmpty(t, processesWith(marker))

	require.NoError(t, cmd.Process.Signal(syscall.SIGKILL))
	_ = cmd.Wait()
	require.Eventually(t, func() bool { return len(processesWith(marker)) == 0 }, 10*time.Second, 20*time.Millisecond,
		"a command outlived its worker")
}

// runUntilKilled is the worker of TestCommandDiesWithTheWorker: it runs a
// long sleep through run_command, says so on stdout once the sleep runs,
// and waits to be killed.
func runUntilKilled(t *testing.T, marker string) {
	cfg := attackConfig()
	cfg.AllowCommands = []string{"sleep"}
	cfg.HeartbeatInterval = 20 * time.Millisecond
	tool, _ := Builtin(cfg).Get("run_command")
	sb := newWorkspace(t, nil)
	var said atomic.Bool
	env := Env{Root: sb, Heartbeat: func(...any) {
		if len(processesWith(marker)) > 0 && said.CompareAndSwap(false, true) {
			fmt.Println("STARTED " + marker)
		}
	}}
	args := fmt.Sprintf(`{"command":"sleep","args":[%q]}`, marker)
	_, err := tool.Run(context.Background(), env, json.RawMessage(args))
	t.Fatalf("the command ended before the worker was killed: %v", err)
}

// killAll kills the processes with the given pids, so that a failed test
// leaves nothing running.
func killAll(pids []string) {
	for _, p := range pids {
		if n, err := strconv.Atoi(p); err == nil {
			_ = syscall.Kill(n, syscall.SIGKILL) // gone already is fine
		}
	}
}
