package workflows

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"

	"github.com/planmode/planmode/activities"
	"github.com/planmode/planmode/plan"
	"github.com/planmode/planmode/signals"
)

// runToolStep runs a tool step: one call with the configured params as
// JSON arguments.
func (r *runner) runToolStep(ctx workflow.Context, step plan.Step) plan.StepResult {
	cfg := step.Config.Tool
	if cfg == nil {
		return plan.StepResult{Error: "tool step has no tool config"}
	}
	// json.Marshal sorts map keys: the same params give the same bytes.
	args, err := json.Marshal(cfg.Params) //workflowcheck:ignore
	if err != nil {
		return plan.StepResult{Error: fmt.Sprintf("tool params: %v", err)}
	}
	if cfg.Params == nil {
		args = []byte("{}")
	}
	v := r.gate.check(ctx, step, cfg.Name, args)
	if v.refusal != "" {
		r.refused[step.ID] = true
		return plan.StepResult{Error: v.refusal}
	}
	if s := r.x.step(step.ID); s != nil && v.note != "" {
		s.Note = v.note
	}
	args = v.args
	if v.approved {
		r.files.reachedOutside(step.ID, cfg.Name+" (approved)")
	}
	out, err := r.callTool(ctx, step, activities.ToolCall{ID: step.ID, Name: cfg.Name, Arguments: string(args)},
		fmt.Sprintf("%s · tool %s", r.stepLabel(step), cfg.Name))
	if note, ok := r.endsStep(step, err); ok {
		return plan.StepResult{Error: note}
	}
	if err != nil {
		return plan.StepResult{Error: fmt.Sprintf("tool %s: %v", cfg.Name, err)}
	}
	res := plan.StepResult{
		Success:         out.Success,
		Output:          out.Output,
		OutputTruncated: out.OutputTruncated,
		OutputRef:       out.OutputRef,
		Error:           out.Error,
		FilesChanged:    out.FilesChanged,
		CommandsRun:     out.CommandsRun,
	}
	if out.Success && out.ExitPlan {
		exitPlan(&res, out)
	}
	return res
}

// isMCP reports whether name is an MCP tool's.
func isMCP(name string) bool {
	return len(name) > len(plan.MCPToolPrefix) && name[:len(plan.MCPToolPrefix)] == plan.MCPToolPrefix
}

// callTool runs one tool call of step (invoke) between two tool-call
// events in the log: started, with the digest of its arguments, and
// finished, with how it came out and the head of its output or error.
func (r *runner) callTool(ctx workflow.Context, step plan.Step, c activities.ToolCall, summary string) (activities.ToolOutput, error) {
	d := toolCall{Tool: c.Name, ArgsDigest: plan.ArgsDigest(json.RawMessage(c.Arguments)), State: "started"}
	r.log.record(ctx, signals.EventToolCall, &step, fmt.Sprintf("step %d calls %s", step.Number, c.Name), d)
	out, err := r.invoke(ctx, step, c, summary)
	d.State = "finished"
	ok := err == nil && out.Success
	d.Success = &ok
	switch {
	case err != nil:
		d.Outcome = err.Error()
	case out.Error != "":
		d.Outcome = out.Error
	default:
		d.Outcome = out.Output
	}
	d.Outcome = plan.TruncateBytes(d.Outcome, toolOutcomeBytes)
	verb := "failed"
	if ok {
		verb = "succeeded"
	}
	r.log.record(ctx, signals.EventToolCall, &step, fmt.Sprintf("step %d: %s %s", step.Number, c.Name, verb), d)
	return out, err
}

// toolOutcomeBytes bounds the head of a tool call's outcome the log
// tells.
const toolOutcomeBytes = 200

// invoke runs one tool call of step: a built-in tool with RunTool, an
// MCP tool with CallMCPTool under the recorded catalogue's digest. An MCP
// answer becomes a ToolOutput: a tool's own failure (isError) and a call
// whose outcome is unknown are unsuccessful outputs the agent or the
// reflection sees, never retried blindly.
func (r *runner) invoke(ctx workflow.Context, step plan.Step, c activities.ToolCall, summary string) (activities.ToolOutput, error) {
	planID := r.x.plan().ID
	if !isMCP(c.Name) {
		in := activities.ToolInput{PlanID: planID, StepID: step.ID, Workspace: r.workspace, Call: c}
		var out activities.ToolOutput
		err := r.files.call(ctx, step.ID, func() error {
			in.Files = r.files.ref(step.ID)
			var err error
			if out, err = runTool(ctx, in, summary); err == nil {
				r.files.changed(step.ID, out.Manifest)
			}
			return err
		})
		return out, err
	}
	k := r.run.recorded()
	if _, ok := k.tools.Tool(c.Name); !ok {
		return activities.ToolOutput{Error: fmt.Sprintf("unknown MCP tool %s: the worker offered no such tool when the plan started", c.Name)}, nil
	}
	if !k.readOnly(c.Name) {
		r.files.reachedOutside(step.ID, c.Name)
	}
	in := activities.MCPCallInput{PlanID: planID, StepID: step.ID, CallID: c.ID, Name: c.Name, Arguments: c.Arguments,
		CatalogueDigest: k.tools.MCPDigest}
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
func (r *runner) endsStep(step plan.Step, err error) (string, bool) {
	var tc toolsChanged
	if !errors.As(err, &tc) {
		return "", false
	}
	r.refused[step.ID] = true
	if s := r.x.step(step.ID); s != nil {
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

// exitPlan makes res the successful end of a step whose tool call asked to
// end the plan: its output is the reason. The executor then skips the
// steps not yet started (see executor.launch).
func exitPlan(res *plan.StepResult, out activities.ToolOutput) {
	reason := out.ExitReason
	if reason == "" {
		reason = out.Output
	}
	res.Success, res.EndedPlan, res.Error = true, true, ""
	res.Output, res.OutputTruncated, res.OutputRef = reason, false, ""
}
