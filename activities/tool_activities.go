package activities

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/planmode/planmode/internal/heartbeat"
	"github.com/planmode/planmode/metrics"
	"github.com/planmode/planmode/outputs"
	"github.com/planmode/planmode/plan"
	"github.com/planmode/planmode/tools"
	"go.opentelemetry.io/otel/attribute"
)

// RunTool runs one tool call in the workspace. A tool that runs but fails
// — a missing file, a non-zero exit, a path that leaves the workspace, bad
// arguments, an unknown tool, a changing tool in read-only mode — is a
// ToolOutput with Success false and Error saying why, so the agent can
// correct itself. A workspace outside the root is a non-retryable
// ErrorTypeWorkspace error; other faults of the worker and cancellation are
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
	f, err := a.enter(ctx, in.Workspace, in.Files, tool.ReadOnly)
	if err != nil {
		return ToolOutput{}, err
	}
	defer f.release()
	sb, err := tools.NewSandbox(f.dir)
	if err != nil {
		return ToolOutput{}, fail(ErrorTypeWorkspace, err, fmt.Sprintf("workspace %s: %v", f.dir, err))
	}
	record := in.Files.Manifest != "" && a.Files != nil && !tool.ReadOnly
	if record {
		// Until the record below ends it, the folder may be half-way
		// through this call: a retry brings it back first.
		if err := a.Files.Begin(f.dir); err != nil {
			return ToolOutput{}, fmt.Errorf("run tool %s: %w", tool.Name, err)
		}
	}
	env := tools.Env{Root: sb, Heartbeat: heartbeat.Recorder(ctx), PlanID: in.PlanID, StepID: in.StepID,
		MaxHeartbeatInterval: heartbeat.Cap(ctx)}
	full := a.fullToolOutput(ctx, in)
	if full != nil {
		env.FullOutput = full
	}
	tctx, span := startSpan(ctx, "tool "+tool.Name, attribute.String("planmode.tool", tool.Name),
		attribute.String("planmode.plan", in.PlanID), attribute.String("planmode.step", in.StepID))
	res, err := tool.Run(tctx, env, json.RawMessage(in.Call.Arguments))
	span.SetAttributes(attribute.Int("planmode.commands", res.CommandsRun))
	endSpan(span, err)
	countCommands(ctx, res.CommandsRun, err)
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
	if record {
		// A failed record fails the call: its retry brings the folder back
		// to the manifest it started from and runs the call again.
		rec, err := a.record(ctx, f, in.PlanID)
		if err != nil {
			full.Discard()
			return ToolOutput{}, err
		}
		out.Manifest = rec.ID
	}
	// The plan keeps only a head of a done step's output
	// (plan.Plan.CompactResult): a longer one is kept whole here.
	out.OutputRef = a.keepToolOutput(ctx, full, out.OutputTruncated || len(out.Output) > plan.KeptOutputBytes, res.Output)
	return out, nil
}

// fullToolOutput starts the file that keeps a call's whole output, or
// returns nil when there is no output store or the call is read-only
// workspace inspection, whose output never reaches workflow history.
func (a *Activities) fullToolOutput(ctx context.Context, in ToolInput) *outputs.File {
	if a.Outputs == nil || in.ReadOnly {
		return nil
	}
	return a.Outputs.Begin(outputNameFor(ctx, in.PlanID, in.StepID, outputs.KindTool, in.Call.ID))
}

// keepToolOutput puts the whole output of a call in place when keep says
// only a head of it is held (truncated here, or compacted by the plan
// later) and returns its path: what the command streamed, or the tool's
// own output when nothing was streamed (a tool that is not a command).
// Otherwise it leaves no file.
func (a *Activities) keepToolOutput(ctx context.Context, full *outputs.File, keep bool, output string) string {
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
	return a.share(ctx, ref)
}

// toolOutput converts a tool's result, capping its output.
func (a *Activities) toolOutput(res tools.Result) ToolOutput {
	limit := a.ToolOutputLimit
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

// usableTools names the tools a call may use.
func (a *Activities) usableTools(readOnly bool) []string {
	if readOnly {
		return a.registry().ReadOnlyNames()
	}
	return a.registry().Names()
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
