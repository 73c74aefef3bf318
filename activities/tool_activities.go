package activities

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"go.opentelemetry.io/otel/attribute"

	"github.com/planmode/planmode/internal/heartbeat"
	"github.com/planmode/planmode/mcp"
	"github.com/planmode/planmode/metrics"
	"github.com/planmode/planmode/outputs"
	"github.com/planmode/planmode/plan"
	"github.com/planmode/planmode/signals"
	"github.com/planmode/planmode/tools"
	"github.com/planmode/planmode/workspace/folders"
)

// Tools carries what the tool activities need.
type Tools struct {
	// Registry holds the tools RunTool runs; nil means
	// tools.Builtin(tools.DefaultConfig()), which allows no command.
	Registry *tools.Registry
	// OutputLimit caps ToolOutput.Output, in bytes, keeping its head and
	// tail; zero means tools.DefaultMaxOutputBytes.
	OutputLimit int
	// MCP reaches the tools of the worker's MCP servers; nil offers none.
	MCP *mcp.Manager
	// Approval is the worker's approval policy (approval.*), which plans
	// record with RecordTools; zero decides by the defaults.
	Approval signals.ApprovalPolicy
	// HeartbeatInterval is how often a call of an MCP tool heartbeats
	// while it waits, as Model's.
	HeartbeatInterval time.Duration
	// Folders are the plans' workspaces on this worker, shared with
	// Workspaces; nil works in the folders as found, under no root.
	Folders *folders.Folders
	// Outputs keeps the whole of every output truncated for workflow
	// history; nil keeps none. With a files store, each is put into the
	// store too and the result's OutputRef is its key there, readable
	// from any host; without, OutputRef is its path on this worker.
	Outputs *outputs.Store
}

// registry returns the configured tools or the built-in default.
func (t *Tools) registry() *tools.Registry {
	if t.Registry == nil {
		return defaultTools()
	}
	return t.Registry
}

// folders returns the workspaces the tools run in.
func (t *Tools) folders() *folders.Folders { return orNoFolders(t.Folders) }

// RunTool runs one tool call in the workspace. A tool that runs but fails
// — a missing file, a non-zero exit, a path that leaves the workspace, bad
// arguments, an unknown tool, a changing tool in read-only mode — is a
// ToolOutput with Success false and Error saying why, so the agent can
// correct itself. A workspace outside the root is a non-retryable
// ErrorTypeWorkspace error; other faults of the worker and cancellation are
// activity errors. Output over the limit keeps its head and tail; with an
// output store the whole of it is kept in a file named by OutputRef.
func (t *Tools) RunTool(ctx context.Context, in ToolInput) (ToolOutput, error) {
	reg := t.registry()
	tool, ok := reg.Get(in.Call.Name)
	if !ok {
		return ToolOutput{Error: fmt.Sprintf("unknown tool %s; available: %s", in.Call.Name,
			strings.Join(t.usableTools(in.ReadOnly), ", "))}, nil
	}
	if in.ReadOnly && !tool.ReadOnly {
		return ToolOutput{Error: fmt.Sprintf("tool %s changes the workspace and is not available while "+
			"planning or reflecting; read-only tools: %s", tool.Name, strings.Join(reg.ReadOnlyNames(), ", "))}, nil
	}
	var out ToolOutput
	var full *outputs.File
	var res tools.Result
	// A call that changes the plan's files names the manifest they are
	// left at (folders.Folders.Work); a failed record fails the call, whose
	// retry brings the folder back to where it started and runs it again.
	manifest, err := t.folders().Work(ctx, in.Workspace, in.Files.ref(), !tool.ReadOnly, pinFor(ctx, in.PlanID),
		func(dir string) error {
			sb, err := tools.NewSandbox(dir)
			if err != nil {
				return fail(ErrorTypeWorkspace, err, fmt.Sprintf("workspace %s: %v", dir, err))
			}
			full = t.fullToolOutput(ctx, in)
			res, err = t.run(ctx, tool, in, sb, full)
			out = t.toolOutput(res)
			switch {
			case err == nil:
				out.Success = true
			case ctx.Err() != nil:
				return fmt.Errorf("run tool %s: %w", tool.Name, ctx.Err())
			case tools.IsToolError(err):
				out.Error = err.Error()
			default:
				return fmt.Errorf("run tool %s: %w", tool.Name, err)
			}
			return nil
		})
	if err != nil {
		full.Discard()
		return ToolOutput{}, refusal(err)
	}
	out.Manifest = manifest
	// The plan keeps only a head of a done step's output
	// (plan.Plan.CompactResult): a longer one is kept whole here.
	out.OutputRef = t.keepToolOutput(ctx, full, out.OutputTruncated || len(out.Output) > plan.KeptOutputBytes, res.Output)
	return out, nil
}

// run runs tool in sandbox sb, in a span of its own, heartbeating while
// it runs, its whole output streamed to full when set, and counts the
// commands it ran.
func (t *Tools) run(ctx context.Context, tool tools.Tool, in ToolInput, sb *tools.Sandbox, full *outputs.File) (tools.Result,
	error) {
	env := tools.Env{Root: sb, Heartbeat: heartbeat.Recorder(ctx), PlanID: in.PlanID, StepID: in.StepID,
		MaxHeartbeatInterval: heartbeat.Cap(ctx)}
	if full != nil {
		env.FullOutput = full
	}
	tctx, span := startSpan(ctx, "tool "+tool.Name, attribute.String("planmode.tool", tool.Name),
		attribute.String("planmode.plan", in.PlanID), attribute.String("planmode.step", in.StepID))
	res, err := tool.Run(tctx, env, json.RawMessage(in.Call.Arguments))
	span.SetAttributes(attribute.Int("planmode.commands", res.CommandsRun))
	endSpan(span, err)
	countCommands(ctx, res.CommandsRun, err)
	return res, err
}

// fullToolOutput starts the file that keeps a call's whole output, or
// returns nil when there is no output store or the call is read-only
// workspace inspection, whose output never reaches workflow history.
func (t *Tools) fullToolOutput(ctx context.Context, in ToolInput) *outputs.File {
	if t.Outputs == nil || in.ReadOnly {
		return nil
	}
	return t.Outputs.Begin(outputNameFor(ctx, in.PlanID, in.StepID, outputs.FromTool, in.Call.ID))
}

// keepToolOutput puts the whole output of a call in place when keep says
// only a head of it is held (truncated here, or compacted by the plan
// later) and returns its path: what the command streamed, or the tool's
// own output when nothing was streamed (a tool that is not a command).
// Otherwise it leaves no file.
func (t *Tools) keepToolOutput(ctx context.Context, full *outputs.File, keep bool, output string) string {
	if !keep {
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
	return t.share(ctx, ref)
}

// outputLimit returns the cap of a call's output in history.
func (t *Tools) outputLimit() int {
	if t.OutputLimit > 0 {
		return t.OutputLimit
	}
	return tools.DefaultMaxOutputBytes
}

// toolOutput converts a tool's result, capping its output.
func (t *Tools) toolOutput(res tools.Result) ToolOutput {
	text, cut := tools.Truncate(res.Output, t.outputLimit())
	return ToolOutput{
		Output:          text,
		OutputTruncated: res.Truncated || cut,
		FilesChanged:    res.FilesChanged,
		CommandsRun:     res.CommandsRun,
		ExitPlan:        res.Exit,
		ExitReason:      res.ExitReason,
	}
}

// usableTools names the tools a call may use.
func (t *Tools) usableTools(readOnly bool) []string {
	if readOnly {
		return t.registry().ReadOnlyNames()
	}
	return t.registry().Names()
}

// countCommands records the commands a tool call ran, by outcome.
func countCommands(ctx context.Context, n int, err error) {
	outcome := metrics.OutcomeOK
	if err != nil {
		outcome = metrics.OutcomeFailed
	}
	for range n {
		metrics.CommandRan(metricsHandler(ctx), outcome)
	}
}
