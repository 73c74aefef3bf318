// Package planworker puts a planmode worker together from its
// configuration: the activities and the registrations. The worker command
// and the in-process workers of the end-to-end tests and benchmarks share
// it, so that the tests run what the worker runs.
package planworker

import (
	sdkworker "go.temporal.io/sdk/worker"
	"go.temporal.io/sdk/workflow"

	"github.com/planmode/planmode/activities"
	"github.com/planmode/planmode/internal/config"
	"github.com/planmode/planmode/signals"
	"github.com/planmode/planmode/tools"
	"github.com/planmode/planmode/workflows"
)

// Register registers the PlanMode workflow under the contract's type name
// and the activities built by NewActivities on w.
func Register(w sdkworker.Registry, cfg config.Config, llm activities.LLMConfig, offline bool, opts ...activities.Option) {
	w.RegisterWorkflowWithOptions(workflows.PlanMode, workflow.RegisterOptions{Name: signals.WorkflowType})
	w.RegisterActivity(NewActivities(cfg, llm, offline, opts...))
}

// NewActivities builds the activities from the configuration: the LLM side
// on llm (offline when the offline model answers), the built-in tools
// confined to workspace.root with the configured command allowlist and
// limits, the webhooks, and the folder that keeps the whole of truncated
// outputs (none when outputs.dir is empty). opts come last, so they may
// set what the configuration does not say (a test's snapshot folder).
func NewActivities(cfg config.Config, llm activities.LLMConfig, offline bool, opts ...activities.Option) *activities.Activities {
	base := []activities.Option{
		activities.WithLLMConfig(llm),
		activities.WithPricing(pricing(cfg.LLM)),
		activities.WithOffline(offline),
		activities.WithTools(tools.Builtin(ToolsConfig(cfg.Tools))),
		activities.WithWorkspaceRoot(cfg.Workspace.Root),
		activities.WithToolOutputLimit(cfg.Tools.MaxOutputBytes),
		activities.WithWebhooks(cfg.Notify.WebhookURL, cfg.Notify.WebhookSecret, nil),
		activities.WithOutputStore(cfg.Outputs.Dir),
	}
	return activities.New(append(base, opts...)...)
}

// LLMConfig maps the configuration onto the adapter's.
func LLMConfig(l config.LLM) activities.LLMConfig {
	temp := l.Temperature
	cfg := activities.LLMConfig{
		BaseURL:        l.BaseURL,
		APIKey:         l.APIKey,
		Model:          l.Model,
		Temperature:    &temp,
		RequestTimeout: l.RequestTimeout,
		JSONSchema:     l.JSONSchema,
	}
	if len(l.Phases) > 0 {
		cfg.Phases = make(map[string]activities.PhaseConfig, len(l.Phases))
		for name, p := range l.Phases {
			cfg.Phases[name] = activities.PhaseConfig{Model: p.Model, Temperature: p.Temperature}
		}
	}
	return cfg
}

// pricing is the default price table with the configured prices on top.
func pricing(l config.LLM) activities.Pricing {
	p := activities.DefaultPricing()
	for name, pr := range l.Prices {
		p[name] = activities.Price{Input: pr.Input, Output: pr.Output}
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
	}
}
