package workflows

import (
	"errors"
	"fmt"
	"strings"

	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"

	"github.com/planmode/planmode/activities"
	"github.com/planmode/planmode/plan"
	"github.com/planmode/planmode/signals"
)

// recordingTools starts recording, once per chain of runs, the worker's
// approval policy and MCP catalogue, so that replays and other workers
// decide and offer what this plan saw: a future recordTools takes, nil
// when the chain has them. It is a local activity, since it only reads
// the worker's memory: its answer is one marker event, with no task to
// schedule and no workflow task when it ends.
func (r *run) recordingTools(ctx workflow.Context) workflow.Future {
	if r.st.Tools != nil {
		return nil
	}
	return workflow.ExecuteLocalActivity(workerCtx(ctx, "record the worker's approval policy and MCP tools"), a.RecordTools)
}

// recordTools keeps what recording (recordingTools) recorded in the
// checkpoint, and lets plans name the recorded MCP tools.
func (r *run) recordTools(ctx workflow.Context, recording workflow.Future) error {
	if recording != nil {
		var out signals.RecordedTools
		if err := recording.Get(ctx, &out); err != nil {
			return fmt.Errorf("record tools: %w", err)
		}
		r.st.Tools = &out
		for _, p := range out.MCPProblems {
			workflow.GetLogger(ctx).Warn("MCP tools left out", "problem", p)
		}
	}
	r.lim.Tools = r.recorded().names()
	return nil
}

// isMCP reports whether name is an MCP tool's.
func isMCP(name string) bool {
	return len(name) > len(plan.MCPToolPrefix) && name[:len(plan.MCPToolPrefix)] == plan.MCPToolPrefix
}

// callTool runs one tool call of step: a built-in tool with RunTool, an
// MCP tool with CallMCPTool under the recorded catalogue's digest. An MCP
// answer becomes a ToolOutput: a tool's own failure (isError) and a call
// whose outcome is unknown are unsuccessful outputs the agent or the
// reflection sees, never retried blindly.
func (e *executor) callTool(ctx workflow.Context, step plan.Step, c activities.ToolCall, summary string) (activities.ToolOutput, error) {
	r := e.r
	if !isMCP(c.Name) {
		in := activities.ToolInput{PlanID: r.st.Plan.ID, StepID: step.ID, Workspace: r.req.Workspace, Call: c}
		var out activities.ToolOutput
		err := e.files.call(ctx, step.ID, func() error {
			in.Files = e.files.ref(step.ID)
			var err error
			if out, err = runTool(ctx, in, summary); err == nil {
				e.files.changed(step.ID, out.Manifest)
			}
			return err
		})
		return out, err
	}
	if _, ok := r.st.Tools.Tool(c.Name); !ok {
		return activities.ToolOutput{Error: fmt.Sprintf("unknown MCP tool %s: the worker offered no such tool when the plan started", c.Name)}, nil
	}
	if !r.recorded().readOnly(c.Name) {
		e.files.reachedOutside(step.ID, c.Name)
	}
	in := activities.MCPCallInput{PlanID: r.st.Plan.ID, StepID: step.ID, CallID: c.ID, Name: c.Name, Arguments: c.Arguments,
		CatalogueDigest: r.st.Tools.MCPDigest}
	out, err := call(stepPriority(heartbeatCtx(ctx, toolStartToClose, summary)), a.CallMCPTool, in)
	if err != nil {
		return mcpFailure(c.Name, err)
	}
	res := activities.ToolOutput{Success: !out.IsError, Output: out.Output, OutputTruncated: out.OutputTruncated, OutputRef: out.OutputRef}
	if len(out.Structured) > 0 && !out.IsError && out.Output == "" {
		res.Output = string(out.Structured)
	}
	if out.IsError {
		res.Error = fmt.Sprintf("MCP tool %s reported an error", c.Name)
	}
	return res, nil
}

// mcpFailure turns a failed CallMCPTool into what the step sees: an
// unknown outcome says so (the call may have run), tools that changed
// under the plan are a toolsChanged, anything else is the activity's
// error.
func mcpFailure(name string, err error) (activities.ToolOutput, error) {
	var app *temporal.ApplicationError
	if errors.As(err, &app) && app.Type() == activities.ErrorTypeMCPCatalogueChanged {
		return activities.ToolOutput{}, toolsChanged{note: fmt.Sprintf("the tools of MCP server %q changed since the plan "+
			"recorded them: %s was not called, nor bound to what the server offers now (%s)", mcpServer(name), name, app.Message())}
	}
	if errors.As(err, &app) && app.Type() == activities.ErrorTypeMCPOutcomeUnknown {
		var d activities.MCPCallOutput
		_ = app.Details(&d)
		why := d.Error
		if why == "" {
			why = app.Message()
		}
		return activities.ToolOutput{Error: fmt.Sprintf("outcome unknown: MCP tool %s may or may not have run (%s); "+
			"it was not retried: check before calling it again", name, why)}, nil
	}
	return activities.ToolOutput{}, err
}

// toolsChanged is an MCP call the worker refused because its tools are
// no longer those the plan recorded. It fails the step for good: a retry
// or the agent's next turn would meet the same refusal, and the plan
// must not be re-bound to tools nobody planned with.
type toolsChanged struct{ note string }

func (c toolsChanged) Error() string { return c.note }

// endsStep reports whether err, a tool call's failure, ends step for
// good, and if so why: the step's note says it and its retries do not
// run.
func (e *executor) endsStep(step plan.Step, err error) (string, bool) {
	var tc toolsChanged
	if !errors.As(err, &tc) {
		return "", false
	}
	e.refused[step.ID] = true
	if s := e.step(step.ID); s != nil {
		s.Note = tc.note
	}
	return tc.note, true
}

// mcpServer returns the server part of an MCP tool's public name
// (mcp__<server>__<tool>).
func mcpServer(name string) string {
	rest := strings.TrimPrefix(name, plan.MCPToolPrefix)
	server, _, _ := strings.Cut(rest, "__")
	return server
}
