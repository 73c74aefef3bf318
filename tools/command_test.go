package tools

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// cmdConfig allows a few commands found on any Debian system, run in the
// command sandbox when there is one (see testSandbox).
func cmdConfig() Config {
	return Config{AllowCommands: []string{"echo", "true", "false", "ls", "cat", "sleep", "timeout"}, Sandbox: testSandbox()}
}

func requireBinary(t *testing.T, names ...string) {
	t.Helper()
	for _, n := range names {
		if _, err := exec.LookPath(n); err != nil {
			t.Skipf("%s not installed", n)
		}
	}
}

func TestRunCommandAllowlist(t *testing.T) {
	requireBinary(t, "echo", "ls")
	sb := newWorkspace(t, map[string]string{"a.txt": "A"})
	reg := Builtin(cmdConfig())

	tests := []struct {
		name, args string
		want       string
		reject     string
	}{
		{name: "allowed", args: `{"command":"echo","args":["hello","world"]}`, want: "hello world\n"},
		{name: "runs in the root", args: `{"command":"ls"}`, want: "a.txt\n"},
		{name: "no output", args: `{"command":"true"}`, want: "(no output)"},
		{name: "not allowed", args: `{"command":"rm","args":["-rf","."]}`,
			reject: `command "rm" is not allowed; allowed: echo, true, false, ls, cat, sleep, timeout`},
		{name: "path to allowed name", args: `{"command":"/bin/echo"}`, reject: "is not allowed"},
		{name: "line in command", args: `{"command":"echo hi"}`, reject: "pass arguments in args"},
		{name: "missing", args: `{"args":["x"]}`, reject: `missing argument "command"`},
		{name: "args not strings", args: `{"command":"echo","args":[1]}`, reject: `invalid argument "args`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, err := call(t, reg, sb, "run_command", tt.args)
			if tt.reject != "" {
				requireToolError(t, err, tt.reject)
				assert.Zero(t, res.CommandsRun)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.want, res.Output)
			assert.Equal(t, 1, res.CommandsRun)
		})
	}
}

func TestRunCommandNothingAllowed(t *testing.T) {
	sb := newWorkspace(t, nil)
	_, err := call(t, Builtin(DefaultConfig()), sb, "run_command", `{"command":"echo"}`)
	requireToolError(t, err, "no commands are allowed")
}

func TestRunCommandNoShell(t *testing.T) {
	requireBinary(t, "echo", "cat")
	sb := newWorkspace(t, map[string]string{"f.txt": "content"})
	reg := Builtin(cmdConfig())
	literal := []string{"$(touch pwned)", "; touch pwned2", "`id`", "$HOME", "*.txt", "a && b", "> out"}
	raw, err := json.Marshal(map[string]any{"command": "echo", "args": literal})
	require.NoError(t, err)
	res, err := call(t, reg, sb, "run_command", string(raw))
	require.NoError(t, err)
	assert.Equal(t, strings.Join(literal, " ")+"\n", res.Output, "arguments reach the program unexpanded")
	for _, f := range []string{"pwned", "pwned2", "out"} {
		assert.NoFileExists(t, filepath.Join(sb.Root(), f))
	}
	_, err = call(t, reg, sb, "run_command", `{"command":"cat","args":["f.txt; echo x"]}`)
	requireToolError(t, err, "exited with code 1")
}

func TestRunCommandExitCode(t *testing.T) {
	requireBinary(t, "false", "ls")
	sb := newWorkspace(t, nil)
	reg := Builtin(cmdConfig())
	res, err := call(t, reg, sb, "run_command", `{"command":"false"}`)
	requireToolError(t, err, `command false exited with code 1`)
	assert.Equal(t, 1, res.CommandsRun)

	res, err = call(t, reg, sb, "run_command", `{"command":"ls","args":["no-such-file"]}`)
	requireToolError(t, err, "exited with code 2")
	assert.Contains(t, err.Error(), "no-such-file", "the error quotes the output's tail")
	assert.Contains(t, res.Output, "no-such-file")
}

func TestRunCommandTimeout(t *testing.T) {
	requireBinary(t, "sleep")
	sb := newWorkspace(t, nil)
	cfg := cmdConfig()
	cfg.CommandTimeout = 200 * time.Millisecond
	start := time.Now()
	_, err := call(t, Builtin(cfg), sb, "run_command", `{"command":"sleep","args":["30"]}`)
	requireToolError(t, err, "timed out after 200ms")
	assert.Less(t, time.Since(start), 10*time.Second)
}

func TestRunCommandOutputCap(t *testing.T) {
	requireBinary(t, "cat")
	big := strings.Repeat("0123456789", 1000) + "THE-END"
	sb := newWorkspace(t, map[string]string{"big.txt": big})
	cfg := cmdConfig()
	cfg.MaxOutputBytes = 1000
	res, err := call(t, Builtin(cfg), sb, "run_command", `{"command":"cat","args":["big.txt"]}`)
	require.NoError(t, err)
	assert.True(t, res.Truncated)
	assert.Less(t, len(res.Output), 1100)
	assert.True(t, strings.HasPrefix(res.Output, "0123456789"), "keeps the head")
	assert.True(t, strings.HasSuffix(res.Output, "THE-END"), "keeps the tail")
	assert.Contains(t, res.Output, "bytes omitted")
}

func TestRunCommandHeartbeats(t *testing.T) {
	requireBinary(t, "sleep")
	sb := newWorkspace(t, nil)
	cfg := cmdConfig()
	cfg.HeartbeatInterval = 10 * time.Millisecond
	var beats atomic.Int32
	tool, _ := Builtin(cfg).Get("run_command")
	env := Env{Root: sb, Heartbeat: func(details ...any) { beats.Add(1) }}
	_, err := tool.Run(context.Background(), env, json.RawMessage(`{"command":"sleep","args":["0.3"]}`))
	require.NoError(t, err)
	assert.GreaterOrEqual(t, beats.Load(), int32(3))
}

func TestRunCommandCancelKillsProcessGroup(t *testing.T) {
	requireBinary(t, "timeout", "sleep")
	if _, err := os.Stat("/proc/self/cmdline"); err != nil {
		t.Skip("needs /proc")
	}
	sb := newWorkspace(t, nil)
	cfg := cmdConfig()
	cfg.HeartbeatInterval = 10 * time.Millisecond
	tool, _ := Builtin(cfg).Get("run_command")
	// timeout forks sleep: killing timeout alone would leave sleep running.
	marker := fmt.Sprintf("%d.%d", 100+os.Getpid()%100, time.Now().UnixNano()%1000)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	started := make(chan struct{})
	var once atomic.Bool
	env := Env{Root: sb, Heartbeat: func(...any) {
		if len(processesWith(marker)) >= 2 && once.CompareAndSwap(false, true) {
			close(started)
		}
	}}
	done := make(chan error, 1)
	go func() {
		args := fmt.Sprintf(`{"command":"timeout","args":["300","sleep",%q]}`, marker)
		_, err := tool.Run(ctx, env, json.RawMessage(args))
		done <- err
	}()
	select {
	case <-started:
	case <-time.After(10 * time.Second):
		t.Fatal("the command did not start")
	}
	cancel()
	select {
	case err := <-done:
		require.ErrorIs(t, err, context.Canceled)
		assert.False(t, IsToolError(err), "cancellation is not the agent's failure")
	case <-time.After(10 * time.Second):
		t.Fatal("cancellation did not stop the command")
	}
	require.Eventually(t, func() bool { return len(processesWith(marker)) == 0 }, 5*time.Second, 20*time.Millisecond,
		"the child of the command survived")
}

// processesWith returns the pids of running processes with arg in their
// command line (zombies have none and are not counted).
func processesWith(arg string) []string {
	dirs, _ := filepath.Glob("/proc/[0-9]*")
	var pids []string
	for _, d := range dirs {
		data, err := os.ReadFile(filepath.Join(d, "cmdline"))
		if err != nil {
			continue
		}
		for _, a := range strings.Split(string(data), "\x00") {
			if a == arg {
				pids = append(pids, filepath.Base(d))
				break
			}
		}
	}
	return pids
}

func TestRunTestsDetection(t *testing.T) {
	tests := []struct {
		name  string
		files map[string]string
		cfg   Config
		want  []string
	}{
		{name: "go", files: map[string]string{"go.mod": "module x\n", "Makefile": "test:\n\tgo test\n"},
			want: []string{"go", "test", "./..."}},
		{name: "npm", files: map[string]string{"package.json": `{"scripts":{"test":"jest"}}`},
			want: []string{"npm", "test"}},
		{name: "npm without test script falls to make", files: map[string]string{
			"package.json": `{"scripts":{}}`, "Makefile": "build:\n\tx\ntest: build\n\tx\n"},
			want: []string{"make", "test"}},
		{name: "override", files: map[string]string{"go.mod": "module x\n"},
			cfg: Config{TestCommand: []string{"echo", "custom"}}, want: []string{"echo", "custom"}},
		{name: "none", files: map[string]string{"Makefile": "build:\n\tx\n"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			sb := newWorkspace(t, tt.files)
			got, err := TestCommand(sb.Root(), tt.cfg)
			if tt.want == nil {
				requireToolError(t, err, "no test command found")
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.want, got)
		})
	}
}

func TestRunTestsRuns(t *testing.T) {
	requireBinary(t, "echo", "false")
	sb := newWorkspace(t, nil)
	tests := []struct {
		name   string
		cfg    Config
		args   string
		want   string
		reject string
	}{
		{name: "allowed by AllowTests", cfg: Config{AllowTests: true, TestCommand: []string{"echo", "PASS"}},
			args: `{"scope":"affected"}`, want: "PASS\n"},
		{name: "allowed by allowlist", cfg: Config{AllowCommands: []string{"echo"}, TestCommand: []string{"echo", "ok"}},
			want: "ok\n"},
		{name: "refused", cfg: Config{TestCommand: []string{"echo", "ok"}}, reject: `"echo" is not an allowed command`},
		{name: "failing tests", cfg: Config{AllowTests: true, TestCommand: []string{"false"}}, reject: "exited with code 1"},
		{name: "bad scope", cfg: Config{AllowTests: true, TestCommand: []string{"echo"}}, args: `{"scope":1}`,
			reject: `invalid argument "scope"`},
		{name: "missing program", cfg: Config{AllowTests: true, TestCommand: []string{"no-such-program-here"}},
			reject: `command "no-such-program-here" not found`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.cfg.Sandbox = testSandbox()
			res, err := call(t, Builtin(tt.cfg), sb, "run_tests", tt.args)
			if tt.reject != "" {
				requireToolError(t, err, tt.reject)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.want, res.Output)
			assert.Equal(t, 1, res.CommandsRun)
		})
	}
}

func TestRunTestsGoModule(t *testing.T) {
	requireBinary(t, "go")
	if testing.Short() {
		t.Skip("runs the go tool")
	}
	sb := newWorkspace(t, map[string]string{
		"go.mod":    "module example.com/m\n\ngo 1.21\n",
		"m.go":      "package m\n\nfunc Two() int { return 2 }\n",
		"m_test.go": "package m\n\nimport \"testing\"\n\nfunc TestTwo(t *testing.T) {\n\tif Two() != 3 {\n\t\tt.Fatal(\"two is not three\")\n\t}\n}\n",
	})
	cfg := DefaultConfig()
	cfg.Sandbox = testSandbox()
	cfg.Env = []string{"GOFLAGS=-mod=mod", "GOTOOLCHAIN=local"}
	res, err := call(t, Builtin(cfg), sb, "run_tests", `{}`)
	requireToolError(t, err, "command go test ./... exited with code 1")
	assert.Contains(t, res.Output, "two is not three")
}

func TestRunTestsDetectionStaysInside(t *testing.T) {
	outside := t.TempDir()
	files := map[string]string{"package.json": `{"scripts":{"test":"CANARY"}}`, "Makefile": "test:\n\tCANARY\n"}
	for name, content := range files {
		require.NoError(t, os.WriteFile(filepath.Join(outside, name), []byte(content), 0o644))
	}
	for name, content := range files {
		t.Run(name+" leading out", func(t *testing.T) {
			sb := newWorkspace(t, nil)
			require.NoError(t, os.Symlink(filepath.Join(outside, name), filepath.Join(sb.Root(), name)))
			_, err := TestCommand(sb.Root(), Config{})
			requireToolError(t, err, "no test command found")
		})
		t.Run(name+" leading inside", func(t *testing.T) {
			sb := newWorkspace(t, map[string]string{"sub/" + name: content})
			require.NoError(t, os.Symlink(filepath.Join("sub", name), filepath.Join(sb.Root(), name)))
			_, err := TestCommand(sb.Root(), Config{})
			require.NoError(t, err)
		})
	}
}
