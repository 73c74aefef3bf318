package activities

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"

	"github.com/planmode/planmode/internal/heartbeat"
	"github.com/planmode/planmode/llm"
	"github.com/planmode/planmode/outputs"
	"github.com/planmode/planmode/tools"
	"github.com/planmode/planmode/workspace"
)

// toolDeps are the tool side's dependencies.
type toolDeps struct {
	tools *tools.Registry
	// root confines the workspaces and keeps their snapshots.
	root workspace.Root
	// toolOutputLimit caps ToolOutput.Output; zero means
	// tools.DefaultMaxOutputBytes.
	toolOutputLimit int
}

// WithTools sets the tools RunTool runs, and offers their specs to agent
// turns and planning prompts unless WithToolSpecs set others. The default
// is tools.Builtin(tools.DefaultConfig()): no commands allowed.
func WithTools(reg *tools.Registry) Option {
	return func(a *Activities) { a.tools = reg }
}

// WithWorkspaceRoot confines every workspace to root: a plan's workspace
// must lie inside it (a relative one is taken relative to it) and an empty
// one means root itself. Without it a plan must name its workspace.
func WithWorkspaceRoot(root string) Option {
	return func(a *Activities) { a.root.Dir = root }
}

// WithSnapshotDir sets where workspace snapshots are kept. The default is
// planmode/snapshots in the user's cache directory, or in the temporary
// directory when there is none. It must not overlap a workspace.
func WithSnapshotDir(dir string) Option {
	return func(a *Activities) { a.root.SnapshotDir = dir }
}

// WithSnapshotLimit sets the largest workspace, in bytes, that
// SnapshotWorkspace copies. Default workspace.DefaultSnapshotLimit
// (200 MiB).
func WithSnapshotLimit(bytes int64) Option {
	return func(a *Activities) { a.root.SnapshotLimit = bytes }
}

// WithToolOutputLimit caps the output RunTool returns, in bytes; longer
// output keeps its head and tail. Default tools.DefaultMaxOutputBytes.
func WithToolOutputLimit(n int) Option {
	return func(a *Activities) { a.toolOutputLimit = n }
}

// ToolSpecsOf adapts a tool registry to ToolSpecs for the LLM side.
func ToolSpecsOf(reg *tools.Registry) ToolSpecs { return registrySpecs{reg} }

// registrySpecs hands out a registry's specs as ToolSpec values.
type registrySpecs struct{ reg *tools.Registry }

// Specs returns the named tools' specs; nil or empty names return all.
func (r registrySpecs) Specs(names []string) []llm.ToolSpec { return toToolSpecs(r.reg.Specs(names)) }

// ReadOnlySpecs returns the specs of the tools planning and reflection may
// use.
func (r registrySpecs) ReadOnlySpecs() []llm.ToolSpec { return toToolSpecs(r.reg.ReadOnlySpecs()) }

func toToolSpecs(specs []tools.Spec) []llm.ToolSpec {
	out := make([]llm.ToolSpec, len(specs))
	for i, s := range specs {
		out[i] = llm.ToolSpec{Name: s.Name, Description: s.Description, Parameters: s.Parameters}
	}
	return out
}

// RunTool runs one tool call in the workspace. A tool that runs but fails
// — a missing file, a non-zero exit, a path that leaves the workspace, bad
// arguments, an unknown tool, a changing tool in read-only mode — is a
// ToolOutput with Success false and Error saying why, so the agent can
// correct itself. A workspace outside the root is a non-retryable
// ErrWorkspace error; other faults of the worker and cancellation are
// activity errors. Output over the limit keeps its head and tail; with an
// output store the whole of it is kept in a file named by OutputRef.
func (a *Activities) RunTool(ctx context.Context, in ToolInput) (ToolOutput, error) {
	reg := a.registry()
	tool, ok := reg.Get(in.Call.Name)
	if !ok {
		return ToolOutput{Error: fmt.Sprintf("unknown tool %s; available: %s", in.Call.Name,
			strings.Join(a.usableTools(in.ReadOnly), ", "))}, nil
	}
	if in.ReadOnly && !tool.ReadOnly {
		return ToolOutput{Error: fmt.Sprintf("tool %s changes the workspace and is not available while "+
			"planning or reflecting; read-only tools: %s", tool.Name, strings.Join(reg.ReadOnlyNames(), ", "))}, nil
	}
	ws, err := a.root.Resolve(in.Workspace, true)
	if err != nil {
		return ToolOutput{}, refusal(err)
	}
	sb, err := tools.NewSandbox(ws)
	if err != nil {
		return ToolOutput{}, fail(ErrWorkspace, err, fmt.Sprintf("workspace %s: %v", ws, err))
	}
	env := tools.Env{Root: sb, Heartbeat: heartbeat.Recorder(ctx), PlanID: in.PlanID, StepID: in.StepID,
		MaxHeartbeatInterval: heartbeat.Cap(ctx)}
	full := a.fullToolOutput(ctx, in)
	if full != nil {
		env.FullOutput = full
	}
	res, err := tool.Run(ctx, env, json.RawMessage(in.Call.Arguments))
	out := a.toolOutput(res)
	switch {
	case err == nil:
		out.Success = true
	case ctx.Err() != nil:
		full.Discard()
		return ToolOutput{}, fmt.Errorf("run tool %s: %w", tool.Name, ctx.Err())
	case tools.IsToolError(err):
		out.Error = err.Error()
	default:
		full.Discard()
		return ToolOutput{}, fmt.Errorf("run tool %s: %w", tool.Name, err)
	}
	out.OutputRef = a.keepToolOutput(ctx, full, out.OutputTruncated, res.Output)
	return out, nil
}

// fullToolOutput starts the file that keeps a call's whole output, or
// returns nil when there is no output store or the call is read-only
// workspace inspection, whose output never reaches workflow history.
func (a *Activities) fullToolOutput(ctx context.Context, in ToolInput) *outputs.File {
	if a.outputs == nil || in.ReadOnly {
		return nil
	}
	return a.outputs.Begin(outputNameFor(ctx, in.PlanID, in.StepID, outputs.KindTool, in.Call.ID))
}

// keepToolOutput puts the whole output of a truncated call in place and
// returns its path: what the command streamed, or the tool's own output
// when nothing was streamed (a tool that is not a command). An output that
// was not truncated leaves no file.
func (a *Activities) keepToolOutput(ctx context.Context, full *outputs.File, truncated bool, output string) string {
	if !truncated {
		full.Discard()
		return ""
	}
	if full == nil {
		return ""
	}
	ref, err := full.Commit(output)
	if err != nil {
		logOutputError(ctx, err)
		return ""
	}
	return ref
}

// toolOutput converts a tool's result, capping its output.
func (a *Activities) toolOutput(res tools.Result) ToolOutput {
	limit := a.toolOutputLimit
	if limit <= 0 {
		limit = tools.DefaultMaxOutputBytes
	}
	text, cut := tools.Truncate(res.Output, limit)
	return ToolOutput{
		Output:          text,
		OutputTruncated: res.Truncated || cut,
		FilesChanged:    res.FilesChanged,
		CommandsRun:     res.CommandsRun,
		ExitPlan:        res.Exit,
		ExitReason:      res.ExitReason,
	}
}

// defaultTools is the registry used without WithTools, built once because
// activities run concurrently.
var defaultTools = sync.OnceValue(func() *tools.Registry { return tools.Builtin(tools.DefaultConfig()) })

// registry returns the configured tools or the built-in default.
func (a *Activities) registry() *tools.Registry {
	if a.tools == nil {
		return defaultTools()
	}
	return a.tools
}

// usableTools names the tools a call may use.
func (a *Activities) usableTools(readOnly bool) []string {
	if readOnly {
		return a.registry().ReadOnlyNames()
	}
	return a.registry().Names()
}

// SnapshotWorkspace copies the workspace, .git included, into the snapshot
// directory under an id derived from the plan id and the workspace, so a
// retry replaces the same snapshot. A workspace over the snapshot limit is
// a non-retryable ErrSnapshot error.
func (a *Activities) SnapshotWorkspace(ctx context.Context, in SnapshotInput) (SnapshotOutput, error) {
	id, files, err := a.root.Snapshot(ctx, in.PlanID, in.Workspace, heartbeat.Recorder(ctx))
	if err != nil {
		return SnapshotOutput{}, refusal(err)
	}
	return SnapshotOutput{SnapshotID: id, Files: files}, nil
}

// RestoreWorkspace makes the workspace equal to the snapshot: files
// modified or deleted since are put back (Restored), files created since
// are removed (Removed), both sorted. Running it again changes nothing, so
// retries are safe. An unknown snapshot, or one of another workspace, is a
// non-retryable ErrSnapshot error.
func (a *Activities) RestoreWorkspace(ctx context.Context, in RestoreInput) (RestoreOutput, error) {
	restored, removed, err := a.root.Restore(ctx, in.SnapshotID, in.Workspace, heartbeat.Recorder(ctx))
	if err != nil {
		return RestoreOutput{}, refusal(err)
	}
	return RestoreOutput{Restored: restored, Removed: removed}, nil
}
