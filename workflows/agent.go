package workflows

import (
	"encoding/json"
	"fmt"
	"strings"

	"go.temporal.io/sdk/workflow"

	"github.com/planmode/planmode/activities"
	"github.com/planmode/planmode/plan"
)

// Transcript roles of an agent step.
const (
	roleAssistant = "assistant"
	roleTool      = "tool"
)

// iterationLimitNote starts the output of an agent step stopped at its cap,
// as gollem words it.
const iterationLimitNote = "Iteration limit reached"

// runAgent runs an agent step as a loop in the workflow: one AgentTurn
// activity per turn, then one RunTool activity per tool call it asked for,
// until a turn asks for no tool (its content is the answer), a turn's
// finish_step ends the step with its answer once the turn's other calls
// succeeded, or the iteration cap is reached. Each turn and tool call is
// its own activity, so a crash resumes mid-loop without redoing finished
// calls.
func (r *runner) runAgent(ctx workflow.Context, step plan.Step) plan.StepResult {
	cfg := step.Config.Agent
	if cfg == nil {
		return plan.StepResult{Error: "agent step has no agent config"}
	}
	limit := cfg.MaxIterations
	if limit <= 0 {
		limit = r.ex.MaxIterationsPerStep
	}
	var res plan.StepResult
	var transcript []activities.Message
	last := ""
	for i := 1; i <= limit; i++ {
		if reason := r.checkHistory(ctx); reason != "" {
			res.Error = reason
			return res
		}
		if reason := r.budget.beforeLLM(ctx); reason != "" {
			res.Error = reason
			return res
		}
		in := activities.AgentTurnInput{StepInput: r.stepInput(step), Transcript: boundTranscript(transcript), Iteration: i,
			MaxIterations: limit, MCPTools: r.run.recorded().mcpSpecs(cfg.Tools)}
		out, err := agentTurn(ctx, in, fmt.Sprintf("%s · turn %d/%d", r.stepLabel(step), i, limit))
		res.Iterations = i
		if err != nil {
			res.Error = fmt.Sprintf("agent turn %d: %v", i, err)
			return res
		}
		r.run.addUsage(ctx, activities.PhaseAgent, out.Usage)
		res.Usage = res.Usage.Add(out.Usage)
		last = out.Content
		if len(out.ToolCalls) == 0 {
			res.Success = true
			res.Output, res.OutputRef = out.Content, out.OutputRef
			return res
		}
		transcript = append(transcript, activities.Message{Role: roleAssistant, Content: out.Content, ToolCalls: out.ToolCalls})
		var finished bool
		transcript, finished = r.agentTools(ctx, step, i, out, transcript, &res)
		if ctx.Err() != nil {
			res.Error = "cancelled"
			return res
		}
		if finished || res.Error != "" || res.EndedPlan {
			return res
		}
	}
	res.Success = true
	res.IterationLimitReached = true
	res.Output = fmt.Sprintf("%s (%d/%d): the step stopped before a final answer. Last turn: %s", iterationLimitNote, limit, limit, last)
	return res
}

// agentTools runs the tool calls of turn (out) in order but finish_step,
// and appends their results to the transcript; a failed tool is reported
// to the model, not to the step. Then finishStep settles finish_step, and
// agentTools reports whether it ended the step. A call that asks to end
// the plan (finish_plan) ends the step at once with its reason: the
// turn's later calls do not run.
func (r *runner) agentTools(ctx workflow.Context, step plan.Step, turn int, out activities.AgentTurnOutput,
	transcript []activities.Message, res *plan.StepResult) ([]activities.Message, bool) {
	var failed []string
	for _, c := range out.ToolCalls {
		if c.Name == activities.FinishStep {
			continue
		}
		if reason := r.checkHistory(ctx); reason != "" {
			res.Error = reason
			return transcript, false
		}
		v := r.gate.check(ctx, step, c.Name, json.RawMessage(c.Arguments))
		if v.refusal != "" {
			// The agent sees the refusal as the tool's answer and decides.
			transcript = append(transcript, activities.Message{Role: roleTool, Content: "error: " + v.refusal, ToolCallID: c.ID})
			failed = append(failed, c.Name)
			if ctx.Err() != nil {
				return transcript, false
			}
			continue
		}
		c.Arguments = string(v.args)
		if v.approved {
			r.files.reachedOutside(step.ID, c.Name+" (approved)")
		}
		got, err := r.callTool(ctx, step, c, fmt.Sprintf("%s · turn %d · tool %s", r.stepLabel(step), turn, c.Name))
		if note, ok := r.endsStep(step, err); ok {
			res.Error = note
			return transcript, false
		}
		content := got.Output
		switch {
		case err != nil:
			content = fmt.Sprintf("error: %v", err)
		case !got.Success:
			content = fmt.Sprintf("error: %s\n%s", got.Error, got.Output)
		}
		if err != nil || !got.Success {
			failed = append(failed, c.Name)
		}
		res.FilesChanged = append(res.FilesChanged, got.FilesChanged...)
		res.CommandsRun += got.CommandsRun
		transcript = append(transcript, activities.Message{Role: roleTool, Content: content, ToolCallID: c.ID})
		if ctx.Err() != nil {
			return transcript, false
		}
		if err == nil && got.Success && got.ExitPlan {
			exitPlan(res, got)
			return transcript, false
		}
	}
	return finishStep(out, failed, transcript, res)
}

// finishStep settles a turn's finish_step calls once its other calls have
// run: when none of those failed and the answer was read, the step
// completes with it and no further turn is asked (true). Otherwise each
// finish_step call is answered with why the step goes on (the calls that
// failed, or what was wrong with its arguments), which the model reads in
// its next turn.
func finishStep(out activities.AgentTurnOutput, failed []string, transcript []activities.Message,
	res *plan.StepResult) ([]activities.Message, bool) {
	var ids []string
	for _, c := range out.ToolCalls {
		if c.Name == activities.FinishStep {
			ids = append(ids, c.ID)
		}
	}
	if len(ids) == 0 {
		return transcript, false
	}
	why := ""
	switch {
	case len(failed) > 0:
		why = fmt.Sprintf("the step did not end: %s failed in this turn (see the result); call finish_step once "+
			"what the step needs has succeeded", strings.Join(failed, ", "))
	case out.Finish == nil:
		why = "the step did not end: the worker read no answer from finish_step; call it again"
	case out.Finish.Error != "":
		why = "the step did not end: " + out.Finish.Error
	}
	if why == "" {
		res.Success, res.Error = true, ""
		res.Output, res.OutputTruncated, res.OutputRef = out.Finish.Answer, false, out.Finish.OutputRef
		return transcript, true
	}
	for _, id := range ids {
		transcript = append(transcript, activities.Message{Role: roleTool, Content: "error: " + why, ToolCallID: id})
	}
	return transcript, false
}
