// Package planworker puts a planmode worker together from its
// configuration: the activities and the registrations. The worker command
// and the in-process workers of the end-to-end tests and benchmarks share
// it, so that the tests run what the worker runs.
package planworker

import (
	"fmt"
	"strings"

	sdkworker "go.temporal.io/sdk/worker"
	"go.temporal.io/sdk/workflow"

	"github.com/planmode/planmode/activities"
	"github.com/planmode/planmode/internal/config"
	"github.com/planmode/planmode/llm"
	"github.com/planmode/planmode/outputs"
	"github.com/planmode/planmode/prompts"
	"github.com/planmode/planmode/signals"
	"github.com/planmode/planmode/tools"
	"github.com/planmode/planmode/webhook"
	"github.com/planmode/planmode/workflows"
	"github.com/planmode/planmode/workspace"
	"github.com/planmode/planmode/workspace/filesconfig"
)

// Register registers on w the PlanMode workflow under the contract's type
// name, its PlanNotify, PlanRollback and PlanWorkspaces companions under
// theirs, and the activities of a (see NewActivities).
//
// Each workflow has its versioning behaviour, which only a versioned worker
// (worker.versioning) uses:
//   - PlanMode is Pinned: a plan runs for hours or days on the build that
//     started it, so a release never has to replay an open plan's history,
//     and it moves to the current build when it continues as new
//     (workflows/upgrade.go).
//   - PlanNotify and PlanRollback are AutoUpgrade: they last seconds, and
//     the build that started them need not be kept for them.
//   - PlanWorkspaces is AutoUpgrade: it is the one lease registry of the
//     task queue and runs for ever. Pinned, it would hold its first build
//     to the end and every plan's workspace lease would stall once that
//     build's workers were stopped. Plans of the old and the new build
//     call it side by side during a rollout anyway, so its code must stay
//     compatible both ways (changes behind workflow.GetVersion).
func Register(w sdkworker.Registry, a *activities.Activities) {
	w.RegisterWorkflowWithOptions(workflows.PlanMode, workflow.RegisterOptions{Name: signals.WorkflowType,
		VersioningBehavior: workflow.VersioningBehaviorPinned})
	w.RegisterWorkflowWithOptions(workflows.PlanNotify, workflow.RegisterOptions{Name: signals.NotifyWorkflowType,
		VersioningBehavior: workflow.VersioningBehaviorAutoUpgrade})
	w.RegisterWorkflowWithOptions(workflows.PlanRollback, workflow.RegisterOptions{Name: signals.RollbackWorkflowType,
		VersioningBehavior: workflow.VersioningBehaviorAutoUpgrade})
	w.RegisterWorkflowWithOptions(workflows.PlanWorkspaces, workflow.RegisterOptions{Name: signals.WorkspacesWorkflowType,
		VersioningBehavior: workflow.VersioningBehaviorAutoUpgrade})
	w.RegisterActivity(a)
}

// NewActivities builds the activities from the configuration: the LLM side
// on model (offline when the offline model answers) with the configured
// prices, the built-in tools confined to workspace.root with the
// configured command allowlist and limits, the snapshot folder, the
// webhooks, and the store that keeps the whole of truncated outputs within
// its caps (none when outputs.dir is empty). A caller may change the
// result (a test's snapshot folder) before registering it.
func NewActivities(cfg config.Config, model llm.Config, offline bool) *activities.Activities {
	a := &activities.Activities{
		LLMConfig:       model,
		Pricing:         pricing(cfg.LLM),
		Offline:         offline,
		Tools:           tools.Builtin(ToolsConfig(cfg.Tools)),
		ToolOutputLimit: cfg.Tools.MaxOutputBytes,
		Workspace: workspace.Root{Dir: cfg.Workspace.Root, SnapshotDir: cfg.Workspace.SnapshotDir,
			SnapshotLimit: cfg.Workspace.SnapshotLimit},
		Webhook: webhook.Sender{URL: cfg.Notify.WebhookURL, Secret: cfg.Notify.WebhookSecret,
			AllowedURLs: append([]string(nil), cfg.Notify.AllowedURLs...)},
	}
	a.Approval = cfg.Approval.Policy()
	// A store that cannot be opened leaves Files nil here; the worker
	// opens it first (Files) and refuses to start with the reason.
	a.Files, _ = Files(cfg.Workspace)
	a.Outputs = OutputStore(cfg.Outputs)
	a.GoalDigest = GoalDigest(cfg.Codec)
	return a
}

// Files opens the store of the plans' files that workspace.store names
// (filesconfig.Open, which the CLI shares). No store configured is nil,
// nil.
func Files(w config.Workspace) (*workspace.Files, error) {
	return filesconfig.Open(w)
}

// GoalDigest returns the digest PlanGoal holds in place of the goal when
// codec.keyFile is set (codec.Keyring.SearchDigest under the file's
// first key), so that a worker that encrypts payloads never puts a goal in
// plaintext into the server's visibility store; nil without a key file.
// A key file that cannot be read (the worker refuses to dial with it
// before) makes every digest an error, and plans then set no PlanGoal.
func GoalDigest(c config.Codec) func(string) (string, error) {
	if !c.Enabled() {
		return nil
	}
	pc, err := c.PayloadCodec()
	if err != nil {
		return func(string) (string, error) { return "", err }
	}
	keys := pc.Keys()
	return func(goal string) (string, error) { return keys.SearchDigest(goal), nil }
}

// OutputStore maps the configuration onto the full outputs' store, or
// returns nil when outputs.dir is empty; the store fills what the
// configuration leaves zero with its defaults.
func OutputStore(o config.Outputs) *outputs.Store {
	if strings.TrimSpace(o.Dir) == "" {
		return nil
	}
	s := outputs.New(o.Dir)
	s.MaxPlanBytes, s.MaxBytes = o.MaxPlanBytes, o.MaxBytes
	return s
}

// LoadPrompts loads the prompt templates of llm.promptDir over the
// embedded ones and checks each against sample data (prompts.Load); with
// no folder it returns the embedded set. The worker calls it before it
// connects, so that a bad template stops the start with its file and the
// error instead of failing runs later.
func LoadPrompts(cfg config.Config) (*prompts.Set, error) {
	set, err := prompts.Load(cfg.LLM.PromptDir)
	if err != nil {
		return nil, fmt.Errorf("llm.promptDir: %w", err)
	}
	return set, nil
}

// LLMConfig maps the configuration onto the adapter's.
func LLMConfig(l config.LLM) llm.Config {
	temp := l.Temperature
	cfg := llm.Config{
		BaseURL:        l.BaseURL,
		APIKey:         l.APIKey,
		Model:          l.Model,
		Temperature:    &temp,
		RequestTimeout: l.RequestTimeout,
		JSONSchema:     l.JSONSchema,
	}
	if len(l.Phases) > 0 {
		cfg.Phases = make(map[string]llm.PhaseConfig, len(l.Phases))
		for name, p := range l.Phases {
			cfg.Phases[name] = llm.PhaseConfig{Model: p.Model, Temperature: p.Temperature}
		}
	}
	return cfg
}

// pricing is the default price table with the configured prices on top.
func pricing(l config.LLM) llm.Pricing {
	p := llm.DefaultPricing()
	for name, pr := range l.Prices {
		p[name] = llm.Price{Input: pr.Input, Output: pr.Output}
	}
	return p
}

// ToolsConfig maps the configuration onto the tools' own; tools.Builtin
// fills what the configuration leaves zero with the tools' defaults.
func ToolsConfig(t config.Tools) tools.Config {
	return tools.Config{
		AllowCommands:  append([]string(nil), t.AllowCommands...),
		AllowTests:     t.AllowTests,
		CommandTimeout: t.CommandTimeout,
		MaxOutputBytes: t.MaxOutputBytes,
		Sandbox:        tools.SandboxMode(t.Sandbox),
		Network:        t.Network,
		Env:            append([]string(nil), t.Env...),
		ReadOnlyPaths:  append([]string(nil), t.ReadOnlyPaths...),
		Limits: tools.Limits{
			Processes:      t.Limits.Processes,
			CPUTime:        t.Limits.CPUTime,
			MemoryBytes:    t.Limits.MemoryBytes,
			TmpBytes:       t.Limits.TmpBytes,
			FileBytes:      t.Limits.FileBytes,
			GrowthBytes:    t.Limits.GrowthBytes,
			WorkspaceBytes: t.Limits.WorkspaceBytes,
		},
	}
}
