package config

import (
	"os"
	"path/filepath"
	"runtime"
	"testing"
	"time"

	"github.com/planmode/planmode/tools"
	"github.com/spf13/pflag"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// loadCase is one configuration scenario: a planmode.yaml in the current
// folder, environment variables and command-line flags.
type loadCase struct {
	name    string
	file    string
	env     map[string]string
	args    []string
	check   func(t *testing.T, c Config)
	wantErr string
}

// load runs a scenario in a fresh folder with a clean PLANMODE_ environment.
func load(t *testing.T, tc loadCase) (Config, error) {
	t.Helper()
	dir := t.TempDir()
	t.Chdir(dir)
	for _, k := range envKeys() {
		t.Setenv(EnvName(k), "")
		// Unset, not empty: an empty PLANMODE_OUTPUTS_DIR means "keep no
		// full outputs".
		require.NoError(t, os.Unsetenv(EnvName(k)))
	}
	t.Setenv(ConfigEnv, "")
	for k, v := range tc.env {
		t.Setenv(k, v)
	}
	if tc.file != "" {
		require.NoError(t, os.WriteFile(filepath.Join(dir, FileName), []byte(tc.file), 0o600))
	}
	fs := pflag.NewFlagSet("test", pflag.ContinueOnError)
	AddTemporalFlags(fs)
	AddWorkerFlags(fs)
	require.NoError(t, fs.Parse(tc.args))
	return FromFlags(fs)
}

func TestLoad(t *testing.T) {
	cases := []loadCase{
		{name: "defaults", check: func(t *testing.T, c Config) {
			assert.Equal(t, "127.0.0.1:7233", c.Temporal.Address)
			assert.Equal(t, "default", c.Temporal.Namespace)
			assert.Equal(t, "planmode", c.Temporal.TaskQueue)
			assert.Equal(t, DefaultModel, c.LLM.Model)
			assert.Equal(t, DefaultTemperature, c.LLM.Temperature)
			assert.Equal(t, 2*time.Minute, c.LLM.RequestTimeout)
			assert.True(t, c.LLM.Offline, "no base URL and no key: offline")
			assert.Zero(t, c.LLM.OfflineLatency, "the offline model answers at once")
			assert.True(t, c.LLM.Stream, "model calls stream their text by default")
			assert.Equal(t, DefaultAllowCommands(), c.Tools.AllowCommands)
			assert.True(t, c.Tools.AllowTests, "run_tests may run the test command by default")
			assert.Equal(t, DefaultMaxOutputBytes, c.Tools.MaxOutputBytes)
			wd, _ := os.Getwd()
			assert.Equal(t, wd, c.Workspace.Root)
			assert.Equal(t, "info", c.Log.Level)
			assert.Equal(t, LogText, c.Log.Format)
			assert.False(t, c.Temporal.TLS.Enabled())
			assert.Equal(t, DefaultOutputsDir(), c.Outputs.Dir)
			assert.Zero(t, c.Worker.StickyTimeout, "the SDK's own sticky timeout")
			assert.Equal(t, DefaultStickyCacheSize, c.Worker.StickyCacheSize, "a bounded cache, not the SDK's 10,000")
			assert.Zero(t, c.Worker.WorkflowPollers, "the SDK's own pollers")
			assert.Zero(t, c.Worker.ActivityPollers, "the SDK's own pollers")
			assert.Equal(t, "auto", c.Tools.Sandbox, "commands run in a sandbox unless told otherwise")
			assert.False(t, c.Tools.Network, "and without the network")
			assert.Empty(t, c.Tools.Env)
			assert.Empty(t, c.Tools.ReadOnlyPaths)
		}},
		{name: "file", file: fileYAML, check: func(t *testing.T, c Config) {
			assert.Equal(t, "10.0.0.1:7233", c.Temporal.Address)
			assert.Equal(t, "plans", c.Temporal.Namespace)
			assert.Equal(t, "pm-queue", c.Temporal.TaskQueue)
			assert.Equal(t, "https://llm.example/v1", c.LLM.BaseURL)
			assert.False(t, c.LLM.Offline, "a base URL turns the offline default off")
			assert.Equal(t, "big", c.LLM.Phases["plan"].Model)
			require.NotNil(t, c.LLM.Phases["reflect"].Temperature)
			assert.Equal(t, 0.0, *c.LLM.Phases["reflect"].Temperature)
			assert.Equal(t, Price{Input: 2, Output: 8}, c.LLM.Prices["gpt-4.1"], "dots in model names survive")
			assert.Equal(t, []string{"go", "make"}, c.Tools.AllowCommands)
			assert.Equal(t, 30*time.Second, c.Tools.CommandTimeout)
			assert.Equal(t, "bwrap", c.Tools.Sandbox)
			assert.True(t, c.Tools.Network)
			assert.Equal(t, []string{"GOFLAGS=-mod=mod", "GOPROXY"}, c.Tools.Env)
			assert.Equal(t, []string{"/opt/go-mods"}, c.Tools.ReadOnlyPaths)
			assert.Equal(t, 8, c.Worker.MaxConcurrentActivities)
			assert.Equal(t, 500, c.Worker.StickyCacheSize)
			assert.Equal(t, 4, c.Worker.WorkflowPollers)
			assert.Equal(t, 6, c.Worker.ActivityPollers)
			assert.Equal(t, LogJSON, c.Log.Format)
			assert.True(t, c.LLM.JSONSchema)
		}},
		{name: "env overrides file", file: fileYAML, env: map[string]string{
			"PLANMODE_TEMPORAL_ADDRESS":               "127.0.0.1:7244",
			"PLANMODE_TOOLS_ALLOWCOMMANDS":            "go,ls",
			"PLANMODE_LLM_PHASES_PLAN_MODEL":          "env-model",
			"PLANMODE_WORKER_MAXCONCURRENTACTIVITIES": "3",
			"PLANMODE_WORKER_STICKYTIMEOUT":           "1s",
			"PLANMODE_TOOLS_ALLOWTESTS":               "false",
			"PLANMODE_TOOLS_SANDBOX":                  "None",
			"PLANMODE_TOOLS_ENV":                      "CGO_ENABLED=0,GOFLAGS",
			"PLANMODE_WORKER_STICKYCACHESIZE":         "300",
			"PLANMODE_WORKER_WORKFLOWPOLLERS":         "10",
		}, check: func(t *testing.T, c Config) {
			assert.Equal(t, 300, c.Worker.StickyCacheSize)
			assert.Equal(t, 10, c.Worker.WorkflowPollers)
			assert.Equal(t, 6, c.Worker.ActivityPollers, "unset variables leave the file's value")
			assert.False(t, c.Tools.AllowTests)
			assert.Equal(t, "none", c.Tools.Sandbox)
			assert.Equal(t, []string{"CGO_ENABLED=0", "GOFLAGS"}, c.Tools.Env)
			assert.Equal(t, time.Second, c.Worker.StickyTimeout)
			assert.Equal(t, "127.0.0.1:7244", c.Temporal.Address)
			assert.Equal(t, "plans", c.Temporal.Namespace, "unset variables leave the file's value")
			assert.Equal(t, []string{"go", "ls"}, c.Tools.AllowCommands)
			assert.Equal(t, "env-model", c.LLM.Phases["plan"].Model)
			assert.Equal(t, 3, c.Worker.MaxConcurrentActivities)
		}},
		{name: "env without a file", env: map[string]string{
			"PLANMODE_TEMPORAL_TASKQUEUE": "q2", "PLANMODE_LLM_APIKEY": "sk-test", "PLANMODE_TEMPORAL_TLS_SERVERNAME": "t.example",
		}, check: func(t *testing.T, c Config) {
			assert.Equal(t, "q2", c.Temporal.TaskQueue)
			assert.Equal(t, "sk-test", c.LLM.APIKey)
			assert.False(t, c.LLM.Offline, "an API key turns the offline default off")
			assert.Equal(t, "t.example", c.Temporal.TLS.ServerName)
		}},
		{name: "flags override env", file: fileYAML,
			env:  map[string]string{"PLANMODE_TEMPORAL_ADDRESS": "127.0.0.1:7244", "PLANMODE_TEMPORAL_NAMESPACE": "env-ns"},
			args: []string{"--address", "127.0.0.1:7255", "--log-level", "DEBUG", "--offline"},
			check: func(t *testing.T, c Config) {
				assert.Equal(t, "127.0.0.1:7255", c.Temporal.Address)
				assert.Equal(t, "env-ns", c.Temporal.Namespace)
				assert.Equal(t, "debug", c.Log.Level)
				assert.True(t, c.LLM.Offline, "--offline wins over the base URL")
			}},
		{name: "offline latency", env: map[string]string{"PLANMODE_LLM_OFFLINELATENCY": "150ms"},
			check: func(t *testing.T, c Config) {
				assert.True(t, c.LLM.Offline)
				assert.Equal(t, 150*time.Millisecond, c.LLM.OfflineLatency)
			}},
		{name: "stream off", env: map[string]string{"PLANMODE_LLM_STREAM": "false"},
			check: func(t *testing.T, c Config) { assert.False(t, c.LLM.Stream) }},
		{name: "stream off in the file", file: "llm:\n  stream: false\n",
			check: func(t *testing.T, c Config) { assert.False(t, c.LLM.Stream) }},
		{name: "negative offline latency", file: "llm:\n  offlineLatency: -1s\n", wantErr: "llm.offlineLatency must not be negative"},
		{name: "explicit offline false without provider", env: map[string]string{"PLANMODE_LLM_OFFLINE": "false"},
			check: func(t *testing.T, c Config) { assert.False(t, c.LLM.Offline) }},
		{name: "config flag names the file", args: []string{"--config", "other.yaml"},
			wantErr: "other.yaml not found"},
		{name: "bad address", env: map[string]string{"PLANMODE_TEMPORAL_ADDRESS": "nohost"}, wantErr: "temporal.address \"nohost\": want host:port"},
		{name: "bad values all reported", file: badYAML, wantErr: "log.format \"xml\""},
		{name: "bad temperature type", env: map[string]string{"PLANMODE_LLM_TEMPERATURE": "warm"}, wantErr: "temperature"},
		{name: "half a client certificate", env: map[string]string{"PLANMODE_TEMPORAL_TLS_CERTFILE": "c.pem"}, wantErr: "set both or neither"},
		{name: "unknown phase", file: "llm:\n  phases:\n    planing:\n      model: x\n", wantErr: "llm.phases.planing: unknown phase"},
		{name: "webhook", env: map[string]string{"PLANMODE_NOTIFY_WEBHOOKURL": "https://hooks.example/plan", "PLANMODE_NOTIFY_WEBHOOKSECRET": "s"},
			check: func(t *testing.T, c Config) {
				assert.Equal(t, Notify{WebhookURL: "https://hooks.example/plan", WebhookSecret: "s"}, c.Notify)
			}},
		{name: "bad webhook", env: map[string]string{"PLANMODE_NOTIFY_WEBHOOKURL": "hooks"}, wantErr: `notify.webhookURL "hooks"`},
		{name: "bad base URL", env: map[string]string{"PLANMODE_LLM_BASEURL": "localhost:8080"}, wantErr: "is not an http(s) URL"},
		{name: "bad prices", file: "llm:\n  prices:\n    m:\n      inptu: 1\n", wantErr: "llm.prices"},
		{name: "unparsable file", file: "temporal: [", wantErr: "planmode.yaml"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c, err := load(t, tc)
			if tc.wantErr != "" {
				require.Error(t, err)
				assert.Contains(t, err.Error(), tc.wantErr)
				return
			}
			require.NoError(t, err)
			tc.check(t, c)
		})
	}
}

const fileYAML = `
temporal:
  address: 10.0.0.1:7233
  namespace: plans
  taskQueue: pm-queue
llm:
  baseURL: https://llm.example/v1
  jsonSchema: true
  phases:
    plan:
      model: big
    reflect:
      temperature: 0
  prices:
    gpt-4.1:
      input: 2
      output: 8
tools:
  allowCommands: [go, make]
  commandTimeout: 30s
  sandbox: bwrap
  network: true
  env: [GOFLAGS=-mod=mod, GOPROXY]
  readOnlyPaths: [/opt/go-mods]
worker:
  maxConcurrentActivities: 8
  stickyCacheSize: 500
  workflowPollers: 4
  activityPollers: 6
log:
  format: json
`

const badYAML = `
llm:
  temperature: 3
  requestTimeout: 0s
tools:
  allowCommands: ["/bin/rm"]
  maxOutputBytes: -1
  sandbox: docker
  env: ["=x", "A B=1"]
  readOnlyPaths: [opt, /]
log:
  level: loud
  format: xml
`

func TestValidateListsEveryProblem(t *testing.T) {
	_, err := load(t, loadCase{file: badYAML})
	require.Error(t, err)
	for _, want := range []string{
		"llm.temperature 3 must be within 0..2",
		"llm.requestTimeout must be positive",
		`"/bin/rm" is not a bare command name`,
		"tools.maxOutputBytes must be positive",
		`tools.sandbox "docker": want one of auto, bwrap, none`,
		`tools.env: "=x" is not KEY=value or KEY`,
		`tools.env: "A B=1" is not KEY=value or KEY`,
		`tools.readOnlyPaths: "opt" must be an absolute path`,
		`tools.readOnlyPaths: "/" must be an absolute path other than /`,
		`log.level "loud"`,
		`log.format "xml"`,
	} {
		assert.Contains(t, err.Error(), want)
	}
}

func TestWorkerLimits(t *testing.T) {
	cases := []struct {
		name    string
		env     map[string]string
		wantErr string
	}{
		{name: "zero pollers keep the SDK's", env: map[string]string{"PLANMODE_WORKER_WORKFLOWPOLLERS": "0", "PLANMODE_WORKER_ACTIVITYPOLLERS": "0"}},
		{name: "one activity poller", env: map[string]string{"PLANMODE_WORKER_ACTIVITYPOLLERS": "1"}},
		{name: "one workflow poller", env: map[string]string{"PLANMODE_WORKER_WORKFLOWPOLLERS": "1"},
			wantErr: "worker.workflowPollers must not be 1"},
		{name: "one workflow task", env: map[string]string{"PLANMODE_WORKER_MAXCONCURRENTWORKFLOWTASKS": "1"},
			wantErr: "worker.maxConcurrentWorkflowTasks must not be 1"},
		{name: "negative activity pollers", env: map[string]string{"PLANMODE_WORKER_ACTIVITYPOLLERS": "-2"},
			wantErr: "worker.activityPollers must not be negative"},
		{name: "negative activities", env: map[string]string{"PLANMODE_WORKER_MAXCONCURRENTACTIVITIES": "-1"},
			wantErr: "worker.maxConcurrentActivities must not be negative"},
		{name: "negative sticky timeout", env: map[string]string{"PLANMODE_WORKER_STICKYTIMEOUT": "-1s"},
			wantErr: "worker.stickyTimeout must not be negative"},
		{name: "no sticky cache", env: map[string]string{"PLANMODE_WORKER_STICKYCACHESIZE": "0"},
			wantErr: "worker.stickyCacheSize must be at least 1"},
		{name: "sticky cache not a number", env: map[string]string{"PLANMODE_WORKER_STICKYCACHESIZE": "lots"},
			wantErr: "worker.stickyCacheSize (PLANMODE_WORKER_STICKYCACHESIZE or the file): cannot parse"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := load(t, loadCase{env: tc.env})
			if tc.wantErr == "" {
				require.NoError(t, err)
				return
			}
			require.Error(t, err)
			assert.Contains(t, err.Error(), tc.wantErr)
		})
	}
}

func TestEnvName(t *testing.T) {
	assert.Equal(t, "PLANMODE_TEMPORAL_ADDRESS", EnvName(KeyAddress))
	assert.Equal(t, "PLANMODE_TEMPORAL_TASKQUEUE", EnvName(KeyTaskQueue))
	assert.Equal(t, "PLANMODE_LLM_PHASES_PLAN_MODEL", EnvName("llm.phases.plan.model"))
}

func TestOutputsDir(t *testing.T) {
	cases := []struct {
		name string
		file string
		env  map[string]string
		want func(wd string) string
	}{
		{name: "default", want: func(string) string { return DefaultOutputsDir() }},
		{name: "env", env: map[string]string{"PLANMODE_OUTPUTS_DIR": "/srv/outputs"},
			want: func(string) string { return "/srv/outputs" }},
		{name: "relative to the current folder", file: "outputs:\n  dir: out\n",
			want: func(wd string) string { return filepath.Join(wd, "out") }},
		{name: "empty in the file disables", file: "outputs:\n  dir: \"\"\n", want: func(string) string { return "" }},
		{name: "empty variable disables", env: map[string]string{"PLANMODE_OUTPUTS_DIR": ""},
			want: func(string) string { return "" }},
		{name: "empty variable wins over the file", file: "outputs:\n  dir: /srv/a\n",
			env: map[string]string{"PLANMODE_OUTPUTS_DIR": ""}, want: func(string) string { return "" }},
		{name: "variable wins over the file", file: "outputs:\n  dir: /srv/a\n",
			env: map[string]string{"PLANMODE_OUTPUTS_DIR": "/srv/b"}, want: func(string) string { return "/srv/b" }},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c, err := load(t, loadCase{file: tc.file, env: tc.env})
			require.NoError(t, err)
			wd, err := os.Getwd()
			require.NoError(t, err)
			assert.Equal(t, tc.want(wd), c.Outputs.Dir)
		})
	}
}

func TestDefaultOutputsDir(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("XDG_CACHE_HOME names the cache folder on Linux only")
	}
	t.Setenv("XDG_CACHE_HOME", "/var/cache/u1")
	assert.Equal(t, "/var/cache/u1/planmode/outputs", DefaultOutputsDir())
}

func TestOutputsDirMustBeAFolder(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "taken")
	require.NoError(t, os.WriteFile(file, []byte("x"), 0o600))
	_, err := load(t, loadCase{env: map[string]string{"PLANMODE_OUTPUTS_DIR": file}})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "outputs.dir")
	assert.Contains(t, err.Error(), "is not a folder")

	c, err := load(t, loadCase{env: map[string]string{"PLANMODE_OUTPUTS_DIR": filepath.Join(dir, "new", "outputs")}})
	require.NoError(t, err, "a folder that does not exist yet is created by the worker")
	assert.Equal(t, filepath.Join(dir, "new", "outputs"), c.Outputs.Dir)

	c.Outputs.Dir = "relative"
	assert.ErrorContains(t, c.Validate(), `outputs.dir "relative" must be an absolute path`)
}

func TestFileKeysMustBeKnown(t *testing.T) {
	cases := []struct {
		name, file, wantErr string
	}{
		{name: "misspelt key", file: "temporal:\n  adress: 10.0.0.1:7233\n", wantErr: "unknown key temporal.adress"},
		{name: "unknown section", file: "tool:\n  allowCommands: [go]\n", wantErr: "unknown key tool.allowcommands"},
		{name: "every known kind", file: fileYAML + "workspace:\n  root: /srv\noutputs:\n  dir: /tmp/o\n" +
			"notify:\n  webhookURL: http://127.0.0.1:9/h\n"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := load(t, loadCase{file: tc.file})
			if tc.wantErr == "" {
				require.NoError(t, err)
				return
			}
			require.Error(t, err)
			assert.Contains(t, err.Error(), tc.wantErr)
		})
	}
}

func TestDecodeErrorIsOneLineNamingTheKey(t *testing.T) {
	_, err := load(t, loadCase{env: map[string]string{"PLANMODE_LLM_TEMPERATURE": "hot"}})
	require.Error(t, err)
	assert.NotContains(t, err.Error(), "\n")
	assert.Contains(t, err.Error(), "config: llm.temperature (PLANMODE_LLM_TEMPERATURE or the file): cannot parse")
}

func TestSandboxModesAreTheTools(t *testing.T) {
	var want []string
	for _, m := range tools.SandboxModes() {
		want = append(want, string(m))
	}
	assert.Equal(t, want, SandboxModes)
	assert.Contains(t, SandboxModes, DefaultSandbox)
}
