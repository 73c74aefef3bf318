// Package activities is the Temporal face of a PlanMode run: every side
// effect the workflow asks for is an activity, called by method reference,
// whose input and output are the contract types of this package (they are
// in workflow history: their names and JSON shapes do not change).
//
// The activities are the methods of four types, by what they serve, that
// a worker registers side by side; the SDK names an activity after its
// method, so no two types share a method name:
//
//   - [Model] calls the LLM (Clarify, GenerateOptions, ExecuteLLMStep,
//     AgentTurn, Reflect, Summarize) with the prompts of package prompts
//     and the rules of llm/phases, decoding replies with llm/reply;
//   - [Tools] runs the tools of package tools in a workspace (RunTool) and
//     those of MCP servers through package mcp (ListMCPTools,
//     CallMCPTool), and says what a plan records of them (RecordTools);
//   - [Workspaces] leases a plan's workspace (AcquireWorkspace, package
//     workspace/lease), takes, restores, merges and forks its files
//     (SnapshotWorkspace, RestoreWorkspace, MergeWorkspace, ForkWorkspace,
//     package workspace/folders) and reads other plans (ForkSource,
//     PlanEnd, package planread; WorkspaceChangedSince);
//   - [Notices] tells the world outside: webhooks (Notify, Receiver,
//     package webhook) and the PlanGoal search attribute (GoalAttr).
//
// Each type's fields are its dependencies, each zero value usable and its
// default stated beside it; set them before the worker starts and leave
// them alone after, as activities run concurrently. Failures are temporal
// ApplicationErrors whose type says what went wrong and whose
// retryability says whether another attempt can help.
package activities

import (
	"sync"

	"github.com/planmode/planmode/tools"
	"github.com/planmode/planmode/workspace/folders"
)

// Set is one activity of each type. The workflow names every activity by
// method value on a zero Set (a.RunTool: the nil receivers never run); a
// worker registers each part of a built one.
type Set struct {
	*Model
	*Tools
	*Workspaces
	*Notices
}

// defaultTools is the registry used without one, built once because
// activities run concurrently.
var defaultTools = sync.OnceValue(func() *tools.Registry { return tools.Builtin(tools.DefaultConfig()) })

// noFolders are the folders of a Tools or Workspaces without any: the
// workspaces as found, under no root.
var noFolders = &folders.Folders{}

// orNoFolders returns f, or noFolders when f is nil.
func orNoFolders(f *folders.Folders) *folders.Folders {
	if f == nil {
		return noFolders
	}
	return f
}
