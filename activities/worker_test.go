package activities

import (
	"time"

	"go.temporal.io/sdk/client"

	"github.com/planmode/planmode/llm"
	"github.com/planmode/planmode/llm/phases"
	"github.com/planmode/planmode/mcp"
	"github.com/planmode/planmode/outputs"
	"github.com/planmode/planmode/prompts"
	"github.com/planmode/planmode/signals"
	"github.com/planmode/planmode/tools"
	"github.com/planmode/planmode/webhook"
	"github.com/planmode/planmode/workspace"
	"github.com/planmode/planmode/workspace/folders"
	"github.com/planmode/planmode/workspace/lease"
)

// worker is what one worker's activities are built from, each dependency
// named once, as worker/planworker builds them: a test sets what it needs
// in one literal and calls the activities of worker{...}.set().
type worker struct {
	LLM               llm.Client
	LLMConfig         llm.Config
	Pricing           llm.Pricing
	Prompts           *prompts.Set
	Offline           bool
	OutputLimit       int
	HeartbeatInterval time.Duration
	ToolSpecs         phases.ToolSpecs

	Tools           *tools.Registry
	ToolOutputLimit int
	MCP             *mcp.Manager
	Approval        signals.ApprovalPolicy

	Workspace workspace.Root
	Files     *workspace.Files
	Outputs   *outputs.Store
	Client    client.Client
	leases    lease.Registry

	Webhook    webhook.Sender
	GoalDigest func(goal string) (string, error)
}

// set builds the activities: the tools and the workspace activities share
// one worker's folders, the model looks through the tools.
func (w worker) set() Set {
	fs := &folders.Folders{Root: w.Workspace, Files: w.Files}
	t := &Tools{Registry: w.Tools, OutputLimit: w.ToolOutputLimit, MCP: w.MCP, Approval: w.Approval,
		HeartbeatInterval: w.HeartbeatInterval, Folders: fs, Outputs: w.Outputs}
	return Set{
		Model: &Model{LLM: w.LLM, LLMConfig: w.LLMConfig, Pricing: w.Pricing, Prompts: w.Prompts, Offline: w.Offline,
			OutputLimit: w.OutputLimit, HeartbeatInterval: w.HeartbeatInterval, ToolSpecs: w.ToolSpecs, Tools: t},
		Tools:      t,
		Workspaces: &Workspaces{Folders: fs, Client: w.Client, leases: w.leases},
		Notices:    &Notices{Webhook: w.Webhook, GoalDigest: w.GoalDigest},
	}
}
