package main

import (
	"github.com/planmode/planmode/activities"
	"github.com/planmode/planmode/activities/tools"
	"github.com/planmode/planmode/internal/config"
)

// newActivities builds the activities from the configuration and model:
// the LLM side on m, the built-in tools confined to workspace.root with the
// configured command allowlist and limits, the webhooks, and the folder
// that keeps the whole of truncated outputs (none when outputs.dir is
// empty).
func newActivities(cfg config.Config, m model) *activities.Activities {
	return activities.New(
		activities.WithLLMConfig(m.cfg),
		activities.WithPricing(pricing(cfg.LLM)),
		activities.WithOffline(m.offline),
		activities.WithTools(tools.Builtin(toolsConfig(cfg.Tools))),
		activities.WithWorkspaceRoot(cfg.Workspace.Root),
		activities.WithToolOutputLimit(cfg.Tools.MaxOutputBytes),
		activities.WithWebhooks(cfg.Notify.WebhookURL, cfg.Notify.WebhookSecret, nil),
		activities.WithOutputStore(cfg.Outputs.Dir),
	)
}

// toolsConfig maps the configuration onto the tools' own, keeping the
// tools' defaults for what the configuration does not say.
func toolsConfig(t config.Tools) tools.Config {
	tc := tools.DefaultConfig()
	tc.AllowCommands = append([]string(nil), t.AllowCommands...)
	tc.AllowTests = t.AllowTests
	tc.CommandTimeout = t.CommandTimeout
	tc.MaxOutputBytes = t.MaxOutputBytes
	return tc
}
