// Package planworker puts a planmode worker together from its
// configuration: the model (the go-openai adapter of llm/openai), the
// activities and the registrations. The worker command and the in-process
// workers of the end-to-end tests and benchmarks share it, so that the
// tests run what the worker runs.
package planworker

import (
	"context"
	"fmt"
	"strings"

	sdkworker "go.temporal.io/sdk/worker"
	"go.temporal.io/sdk/workflow"

	"github.com/planmode/planmode/activities"
	"github.com/planmode/planmode/internal/config"
	"github.com/planmode/planmode/llm"
	"github.com/planmode/planmode/llm/openai"
	"github.com/planmode/planmode/mcp"
	"github.com/planmode/planmode/outputs"
	"github.com/planmode/planmode/prompts"
	"github.com/planmode/planmode/signals"
	"github.com/planmode/planmode/tools"
	"github.com/planmode/planmode/webhook"
	"github.com/planmode/planmode/workflows"
	"github.com/planmode/planmode/workspace"
	"github.com/planmode/planmode/workspace/filesconfig"
	"github.com/planmode/planmode/workspace/folders"
)

// Register registers on w the PlanMode workflow under the contract's type
// name, its PlanNotify, PlanRollback and PlanWorkspaceLease companions under
// theirs, and the activities built from a (see NewActivities; nil builds
// them from a zero Activities), each type side by side.
//
// Each workflow has its versioning behaviour, which only a versioned worker
// (worker.versioning) uses:
//   - PlanMode is Pinned: a plan runs for hours or days on the build that
//     started it, so a release never has to replay an open plan's history,
//     and it moves to the current build when it continues as new
//     (workflows/upgrade.go).
//   - PlanNotify and PlanRollback are AutoUpgrade: they last seconds, and
//     the build that started them need not be kept for them.
//   - PlanWorkspaceLease is AutoUpgrade: a workspace key's lease workflow
//     runs as long as plans keep leasing the key (a busy parent folder's
//     for ever, continuing as new). Pinned, it would hold its first build
//     to the end and the leases of its key would stall once that build's
//     workers were stopped. Plans of the old and the new build call it
//     side by side during a rollout anyway, so its code must stay
//     compatible both ways (changes behind workflow.GetVersion).
func Register(w sdkworker.Registry, a *Activities) {
	w.RegisterWorkflowWithOptions(workflows.PlanMode, workflow.RegisterOptions{Name: signals.WorkflowType,
		VersioningBehavior: workflow.VersioningBehaviorPinned})
	w.RegisterWorkflowWithOptions(workflows.PlanNotify, workflow.RegisterOptions{Name: signals.NotifyWorkflowType,
		VersioningBehavior: workflow.VersioningBehaviorAutoUpgrade})
	w.RegisterWorkflowWithOptions(workflows.PlanRollback, workflow.RegisterOptions{Name: signals.RollbackWorkflowType,
		VersioningBehavior: workflow.VersioningBehaviorAutoUpgrade})
	w.RegisterWorkflowWithOptions(workflows.PlanWorkspaceLease, workflow.RegisterOptions{Name: signals.LeaseWorkflowType,
		VersioningBehavior: workflow.VersioningBehaviorAutoUpgrade})
	set := a.Set()
	for _, part := range []any{set.Model, set.Tools, set.Workspaces, set.Notices} {
		w.RegisterActivity(part)
	}
}

// Activities is what a worker's activities are built from: the
// dependencies of every type of activities.Set, each named once. Register
// builds them, so a caller may change these (a test's snapshot folder)
// until then.
type Activities struct {
	// LLM is the model the activities call; nil means the go-openai
	// adapter built from LLMConfig (NewLLM).
	LLM llm.Client
	// LLMConfig configures that adapter and names the model of each
	// phase, whose price costs usage and estimates.
	LLMConfig llm.Config
	Pricing   llm.Pricing
	Prompts   *prompts.Set
	Offline   bool

	// Tools are the tools plans run; ToolOutputLimit caps their output
	// in history.
	Tools           *tools.Registry
	ToolOutputLimit int
	MCP             *mcp.Manager
	Approval        signals.ApprovalPolicy

	// Workspace confines the plans' workspaces and keeps their whole-copy
	// snapshots; Files keeps their files in a blob store; Outputs keeps
	// outputs whole.
	Workspace workspace.Root
	Files     *workspace.Files
	Outputs   *outputs.Store

	Webhook    webhook.Sender
	GoalDigest func(goal string) (string, error)
}

// Set builds the activities from a: one of each type, the tools and the
// workspace activities sharing this worker's folders, the model looking
// at the workspaces through those tools.
func (a *Activities) Set() activities.Set {
	if a == nil {
		a = &Activities{}
	}
	model := a.LLM
	if model == nil {
		model = NewLLM(a.LLMConfig)
	}
	fs := &folders.Folders{Root: a.Workspace, Files: a.Files}
	t := &activities.Tools{Registry: a.Tools, OutputLimit: a.ToolOutputLimit, MCP: a.MCP, Approval: a.Approval,
		Folders: fs, Outputs: a.Outputs}
	return activities.Set{
		Model: &activities.Model{LLM: model, LLMConfig: a.LLMConfig, Pricing: a.Pricing, Prompts: a.Prompts,
			Offline: a.Offline, Tools: t},
		Tools:      t,
		Workspaces: &activities.Workspaces{Folders: fs},
		Notices:    &activities.Notices{Webhook: a.Webhook, GoalDigest: a.GoalDigest},
	}
}

// NewLLM builds the go-openai adapter from cfg, or a model that fails
// every call with a non-retryable LLMConfigError saying why there is none:
// no model, base URL or key configured, or a configuration the adapter
// refuses.
func NewLLM(cfg llm.Config) llm.Client {
	if cfg.BaseURL == "" && cfg.APIKey == "" && cfg.Model == "" {
		return brokenLLM{msg: "no LLM is configured: set llm.baseURL, llm.apiKey and llm.model, or use the " +
			"offline model"}
	}
	o, err := openai.New(cfg)
	if err != nil {
		return brokenLLM{err: err, msg: fmt.Sprintf("the LLM is misconfigured: %v", err)}
	}
	return o
}

// brokenLLM fails every call with the configuration error that made it.
type brokenLLM struct {
	err error
	msg string
}

// Complete returns the configuration error, non-retryable.
func (b brokenLLM) Complete(context.Context, llm.Request) (llm.Response, error) {
	return llm.Response{}, llm.Fail(llm.ErrorTypeConfig, b.err, b.msg)
}

// NewActivities builds what the activities are built from out of the
// configuration: the LLM side on model (offline when the offline model
// answers) with the configured prices, the built-in tools confined to
// workspace.root with the configured command allowlist and limits, the
// snapshot folder, the webhooks, and the store that keeps the whole of
// truncated outputs within its caps (none when outputs.dir is empty). A
// caller may change the result (a test's snapshot folder) before
// registering it.
func NewActivities(cfg config.Config, model llm.Config, offline bool) *Activities {
	a := &Activities{
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
		Stream:         l.Stream,
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
