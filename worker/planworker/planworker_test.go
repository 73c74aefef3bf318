package planworker

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	sdkworker "go.temporal.io/sdk/worker"
	"go.temporal.io/sdk/workflow"

	"github.com/planmode/planmode/internal/config"
	"github.com/planmode/planmode/llm"
	"github.com/planmode/planmode/outputs"
	"github.com/planmode/planmode/prompts"
	"github.com/planmode/planmode/signals"
	"github.com/planmode/planmode/tools"
)

func TestLLMConfigMapsTheConfiguration(t *testing.T) {
	temp := 0.7
	got := LLMConfig(config.LLM{
		BaseURL: "https://x/v1", APIKey: "k", Model: "m", Temperature: 0.3, RequestTimeout: time.Minute, JSONSchema: true,
		Stream: true, Phases: map[string]config.PhaseModel{"plan": {Model: "big", Temperature: &temp}},
	})
	assert.Equal(t, "https://x/v1", got.BaseURL)
	assert.Equal(t, "k", got.APIKey)
	assert.Equal(t, "big", got.ModelFor("plan"))
	assert.Equal(t, "m", got.ModelFor("reflect"))
	require.NotNil(t, got.TemperatureFor("reflect"))
	assert.Equal(t, 0.3, *got.TemperatureFor("reflect"))
	assert.Equal(t, 0.7, *got.TemperatureFor("plan"))
	assert.True(t, got.JSONSchema)
	assert.True(t, got.Stream)

	p := pricing(config.LLM{Prices: map[string]config.Price{"mine": {Input: 1, Output: 2}}})
	assert.Equal(t, llm.Price{Input: 1, Output: 2}, p["mine"])
	_, known := p.Lookup("gpt-4o")
	assert.True(t, known, "defaults stay")
}

func TestToolsConfigKeepsTheConfiguredLimits(t *testing.T) {
	tc := ToolsConfig(config.Tools{AllowCommands: []string{"go"}, AllowTests: true, CommandTimeout: time.Minute,
		MaxOutputBytes: 1024})
	assert.Equal(t, []string{"go"}, tc.AllowCommands)
	assert.Equal(t, time.Minute, tc.CommandTimeout)
	assert.Equal(t, 1024, tc.MaxOutputBytes)
	assert.True(t, tc.AllowTests)
}

func TestToolsConfigCanForbidTests(t *testing.T) {
	reg := tools.Builtin(ToolsConfig(config.Tools{AllowTests: false}))
	run, ok := reg.Get("run_tests")
	require.True(t, ok)
	ws := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(ws, "Makefile"), []byte("test:\n\ttouch ran\n"), 0o644))
	sb, err := tools.NewSandbox(ws)
	require.NoError(t, err)
	_, err = run.Run(context.Background(), tools.Env{Root: sb}, nil)
	require.True(t, tools.IsToolError(err), "want a refusal, got %v", err)
	assert.Contains(t, err.Error(), "tests are not allowed")
	assert.NoFileExists(t, filepath.Join(ws, "ran"), "make test did not run")
}

func TestNewActivitiesWiresTheConfiguration(t *testing.T) {
	cfg := config.Config{
		Workspace: config.Workspace{Root: "/srv/repos"},
		Tools:     config.Tools{MaxOutputBytes: 2048},
		Notify:    config.Notify{WebhookURL: "https://hooks.invalid/plan", WebhookSecret: "s"},
	}
	a := NewActivities(cfg, llm.Config{Model: "m"}, true)
	assert.Equal(t, "m", a.LLMConfig.Model)
	assert.True(t, a.Offline)
	assert.Equal(t, "/srv/repos", a.Workspace.Dir)
	assert.Equal(t, 2048, a.ToolOutputLimit)
	assert.Equal(t, "https://hooks.invalid/plan", a.Webhook.URL)
	assert.Equal(t, "s", a.Webhook.Secret)
	require.NotNil(t, a.Tools)
	_, known := a.Pricing.Lookup("gpt-4o")
	assert.True(t, known, "the default prices")
	assert.Nil(t, a.Outputs, "no outputs.dir keeps no full outputs")

	cfg.Outputs.Dir = t.TempDir()
	require.NotNil(t, NewActivities(cfg, llm.Config{}, false).Outputs)
	assert.Equal(t, cfg.Outputs.Dir, NewActivities(cfg, llm.Config{}, false).Outputs.Dir())
}

func TestLoadPromptsRefusesABadFolderAtStart(t *testing.T) {
	var cfg config.Config
	set, err := LoadPrompts(cfg)
	require.NoError(t, err)
	assert.Same(t, prompts.Default(), set)

	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "reflect_system.tmpl"), []byte("{{.Nope}}"), 0o600))
	cfg.LLM.PromptDir = dir
	_, err = LoadPrompts(cfg)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "llm.promptDir")
	assert.Contains(t, err.Error(), "Nope")

	require.NoError(t, os.WriteFile(filepath.Join(dir, "reflect_system.tmpl"), []byte("Reflect for {{.Context.Goal}}"), 0o600))
	set, err = LoadPrompts(cfg)
	require.NoError(t, err)
	a := NewActivities(cfg, llm.Config{Model: "m"}, true)
	a.Prompts = set
	assert.NotSame(t, prompts.Default(), a.Prompts)
}

func TestConfigLimitDefaultsAreTheTools(t *testing.T) {
	assert.Equal(t, tools.DefaultProcesses, config.DefaultLimitProcesses)
	assert.Equal(t, tools.DefaultCPUTime, config.DefaultLimitCPUTime)
	assert.EqualValues(t, tools.DefaultMemoryBytes, config.DefaultLimitMemoryBytes)
	assert.EqualValues(t, tools.DefaultTmpBytes, config.DefaultLimitTmpBytes)
	assert.EqualValues(t, tools.DefaultFileBytes, config.DefaultLimitFileBytes)
	assert.EqualValues(t, tools.DefaultGrowthBytes, config.DefaultLimitGrowthBytes)
	assert.EqualValues(t, tools.DefaultWorkspaceBytes, config.DefaultLimitWorkspaceBytes)
	assert.Equal(t, outputs.DefaultMaxPlanBytes, config.DefaultOutputsMaxPlanBytes)
	assert.Equal(t, outputs.DefaultMaxBytes, config.DefaultOutputsMaxBytes)
}

func TestToolsConfigMapsTheLimits(t *testing.T) {
	limits := config.ToolLimits{Processes: 1, CPUTime: 2 * time.Second, MemoryBytes: 3, TmpBytes: 4, FileBytes: 5,
		GrowthBytes: 6, WorkspaceBytes: 7}
	assert.Equal(t, tools.Limits{Processes: 1, CPUTime: 2 * time.Second, MemoryBytes: 3, TmpBytes: 4, FileBytes: 5,
		GrowthBytes: 6, WorkspaceBytes: 7}, ToolsConfig(config.Tools{Limits: limits}).Limits)
}

func TestNewActivitiesWiresTheStoresAndTheirCaps(t *testing.T) {
	cfg := config.Config{
		Workspace: config.Workspace{Root: t.TempDir(), SnapshotDir: "/srv/snapshots"},
		Outputs:   config.Outputs{Dir: t.TempDir(), MaxPlanBytes: 10, MaxBytes: 1000},
	}
	a := NewActivities(cfg, llm.Config{}, true)
	assert.Equal(t, "/srv/snapshots", a.Workspace.SnapshotDir)
	require.NotNil(t, a.Outputs)
	assert.Equal(t, int64(10), a.Outputs.MaxPlanBytes)
	assert.Equal(t, int64(1000), a.Outputs.MaxBytes)
	ref, err := a.Outputs.Save(outputs.Name{Run: "p", Step: "s", Origin: outputs.FromTool}, "more than ten bytes")
	require.NoError(t, err)
	data, err := os.ReadFile(ref)
	require.NoError(t, err)
	assert.Contains(t, string(data), "outputs.maxPlanBytes", "the plan's cap holds")
	assert.Nil(t, OutputStore(config.Outputs{Dir: " "}), "no folder, no store")
}

func TestNewActivitiesDigestsTheGoalWhenPayloadsAreEncrypted(t *testing.T) {
	assert.Nil(t, NewActivities(config.Config{}, llm.Config{}, true).GoalDigest, "no key file: the goal itself")

	path := filepath.Join(t.TempDir(), "keys")
	require.NoError(t, os.WriteFile(path, []byte("k1:AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8=\n"), 0o600))
	a := NewActivities(config.Config{Codec: config.Codec{KeyFile: path}}, llm.Config{}, true)
	require.NotNil(t, a.GoalDigest)
	d, err := a.GoalDigest("Add JWT authentication")
	require.NoError(t, err)
	assert.Equal(t, "hmac:53fda74d63f0a681bcef0555f13d6ad7", d, "the codec's digest under the first key")

	gone := NewActivities(config.Config{Codec: config.Codec{KeyFile: filepath.Join(t.TempDir(), "missing")}}, llm.Config{}, true)
	require.NotNil(t, gone.GoalDigest, "a key file that cannot be read still never lets the goal through")
	_, err = gone.GoalDigest("Add JWT authentication")
	assert.ErrorContains(t, err, "codec.keyFile")
}

// registry records what Register registers.
type registry struct {
	sdkworker.Registry
	behaviours map[string]workflow.VersioningBehavior
	activities int
}

func (r *registry) RegisterWorkflowWithOptions(_ any, o workflow.RegisterOptions) {
	r.behaviours[o.Name] = o.VersioningBehavior
}

func (r *registry) RegisterActivity(any) { r.activities++ }

func TestRegisterGivesEveryWorkflowItsVersioningBehaviour(t *testing.T) {
	r := &registry{behaviours: map[string]workflow.VersioningBehavior{}}
	Register(r, &Activities{})
	assert.Equal(t, map[string]workflow.VersioningBehavior{
		signals.WorkflowType:         workflow.VersioningBehaviorPinned,
		signals.NotifyWorkflowType:   workflow.VersioningBehaviorAutoUpgrade,
		signals.RollbackWorkflowType: workflow.VersioningBehaviorAutoUpgrade,
		signals.LeaseWorkflowType:    workflow.VersioningBehaviorAutoUpgrade,
	}, r.behaviours, "plans stay on their build; the short workflows and the workspace leases follow the current one")
	assert.Equal(t, 4, r.activities, "the model, the tools, the workspaces and the notices, side by side")
}
