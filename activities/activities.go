// Package activities is the Temporal face of a PlanMode run: every side
// effect the workflow asks for is a method of [Activities], called by
// method reference, whose input and output are the contract types of this
// package (they are in workflow history: their names and JSON shapes do
// not change).
//
// The methods translate those types and call the subsystems that do the
// work:
//
//   - LLM activities (Clarify, GenerateOptions, ExecuteLLMStep, AgentTurn,
//     Reflect, Summarize) render prompts with package prompts, call an
//     llm.Client (the go-openai adapter of llm/openai by default), decode
//     replies with llm/reply and cost them with llm.Pricing;
//   - ListMCPTools and CallMCPTool list and call the tools of MCP servers
//     through package mcp;
//   - RunTool runs one tool of package tools in a workspace that package
//     workspace resolves, which also takes and restores the snapshots of
//     SnapshotWorkspace and RestoreWorkspace;
//   - Notify delivers webhooks with package webhook;
//   - AcquireWorkspace leases a plan's workspace from the PlanWorkspaces
//     registry of its task queue, so open plans never share files;
//   - GoalAttr says what the PlanGoal search attribute holds: the goal, or
//     its keyed digest when payloads are encrypted;
//   - truncated outputs are kept whole by package outputs.
//
// Failures are temporal ApplicationErrors whose type says what went wrong
// and whose retryability says whether another attempt can help.
package activities

import (
	"context"
	"fmt"
	"sync"
	"time"

	"go.temporal.io/sdk/client"

	"github.com/planmode/planmode/llm"
	"github.com/planmode/planmode/llm/openai"
	"github.com/planmode/planmode/mcp"
	"github.com/planmode/planmode/outputs"
	"github.com/planmode/planmode/prompts"
	"github.com/planmode/planmode/signals"
	"github.com/planmode/planmode/tools"
	"github.com/planmode/planmode/webhook"
	"github.com/planmode/planmode/workspace"
)

// DefaultOutputLimit bounds a step's output kept in workflow history when
// Activities.OutputLimit is zero.
const DefaultOutputLimit = 4 << 10

// Activities carries the dependencies of every activity. Each field's
// zero value is usable and its default is stated beside it, so a zero
// Activities runs tools in the workspace a plan names and fails every LLM
// activity until a model is configured. Set the fields before the worker
// starts and leave them alone after: activities run concurrently.
type Activities struct {
	// LLM is the model the LLM activities call. When nil, the go-openai
	// adapter is built from LLMConfig on first use; without a model, base
	// URL or key there, or with a configuration the adapter refuses, every
	// LLM activity fails with a non-retryable LLMConfigError saying why.
	LLM llm.Client
	// LLMConfig configures that adapter. Whatever model answers, it also
	// names the model of each phase, whose price costs usage the reply
	// does not attribute and the estimates of planned steps.
	LLMConfig llm.Config
	// Pricing costs every call; nil means llm.DefaultPricing(). A model
	// not in the table costs nothing: usage is still counted.
	Pricing llm.Pricing
	// Prompts are the prompt templates the LLM activities render; nil
	// means the embedded ones (prompts.Default). The worker loads an
	// operator's folder into it at start (llm.promptDir).
	Prompts *prompts.Set
	// Offline marks outputs as the offline model's, so that results can
	// say no real LLM was used.
	Offline bool
	// OutputLimit bounds StepResult.Output, in bytes; zero means
	// DefaultOutputLimit (4 KiB).
	OutputLimit int
	// HeartbeatInterval is how often a running LLM call heartbeats, at
	// most a third of the activity's heartbeat timeout; zero means
	// heartbeat.DefaultInterval (10s).
	HeartbeatInterval time.Duration

	// Tools are the tools RunTool runs; nil means
	// tools.Builtin(tools.DefaultConfig()), which allows no command.
	Tools *tools.Registry
	// ToolSpecs hands out the specs offered to agent turns and planning
	// prompts; nil means the specs of Tools.
	ToolSpecs ToolSpecs
	// ToolOutputLimit caps ToolOutput.Output, in bytes, keeping its head
	// and tail; zero means tools.DefaultMaxOutputBytes.
	ToolOutputLimit int
	// MCP reaches the tools of the worker's MCP servers for ListMCPTools
	// and CallMCPTool; nil offers none.
	MCP *mcp.Manager
	// Approval is the worker's approval policy (approval.*), which plans
	// record with RecordTools; zero decides by the defaults.
	Approval signals.ApprovalPolicy
	// Workspace confines the plans' workspaces and keeps their snapshots;
	// see workspace.Root for its defaults.
	Workspace workspace.Root

	// Outputs keeps the whole of every output truncated for workflow
	// history; nil keeps none. With Files, each is put into the store too
	// and the result's OutputRef is its key there, readable from any host;
	// without, OutputRef is its path on this worker.
	Outputs *outputs.Store
	// Webhook delivers Notify's events: its URL is the receiver of plans
	// that name none; see webhook.Sender for its defaults.
	Webhook webhook.Sender
	// Client reaches the workspace registry for AcquireWorkspace; nil
	// means the client of the worker that runs the activity.
	Client client.Client
	// GoalDigest, set on a worker that encrypts payloads, returns the
	// keyed digest GoalAttr writes to PlanGoal in place of the goal
	// (codec.Keyring.SearchDigest); nil writes the goal.
	GoalDigest func(goal string) (string, error)

	// Files keeps the plans' files in a blob store, so that any worker
	// brings a workspace to the manifest a step names before it runs and
	// records what the step changed; nil works in the folders as found
	// (no step manifests, no forks, no rollback past the first snapshot).
	Files *workspace.Files

	// leases stands in for the registry in tests.
	leases leaseRegistry
	// folders serializes the activities on one folder.
	folders folderLocks

	// adapter is the LLM built from LLMConfig, once.
	adapter     llm.Client
	adapterOnce sync.Once
}

// model returns the LLM to call: LLM, else the adapter built from
// LLMConfig.
func (a *Activities) model() llm.Client {
	if a.LLM != nil {
		return a.LLM
	}
	a.adapterOnce.Do(func() { a.adapter = newAdapter(a.LLMConfig) })
	return a.adapter
}

// newAdapter builds the go-openai adapter from cfg, or an LLM that fails
// every call with the reason there is none.
func newAdapter(cfg llm.Config) llm.Client {
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

// prices returns the price table, llm.DefaultPricing when none was set.
func (a *Activities) prices() llm.Pricing {
	if a.Pricing == nil {
		return llm.DefaultPricing()
	}
	return a.Pricing
}

// outputLimit returns the step output limit.
func (a *Activities) outputLimit() int {
	if a.OutputLimit > 0 {
		return a.OutputLimit
	}
	return DefaultOutputLimit
}

// defaultTools is the registry used without Tools, built once because
// activities run concurrently.
var defaultTools = sync.OnceValue(func() *tools.Registry { return tools.Builtin(tools.DefaultConfig()) })

// registry returns the configured tools or the built-in default.
func (a *Activities) registry() *tools.Registry {
	if a.Tools == nil {
		return defaultTools()
	}
	return a.Tools
}

// specs returns where tool specs come from: ToolSpecs, else the tools
// RunTool runs.
func (a *Activities) specs() ToolSpecs {
	if a.ToolSpecs != nil {
		return a.ToolSpecs
	}
	return ToolSpecsOf(a.registry())
}
