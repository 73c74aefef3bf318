package workflows

import (
	"encoding/json"
	"fmt"

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
// until a turn asks for no tool (its content is the answer) or the
// iteration cap is reached. Each turn and tool call is its own activity,
// so a crash resumes mid-loop without redoing finished calls.
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
		transcript = r.agentTools(ctx, step, i, out.ToolCalls, transcript, &res)
		if ctx.Err() != nil {
			res.Error = "cancelled"
			return res
		}
		if res.Error != "" {
			return res
		}
		if res.EndedPlan {
			return res
		}
	}
	res.Success = true
	res.IterationLimitReached = true
	res.Output = fmt.Sprintf("%s (%d/%d): the step stopped before a final answer. Last turn: %s", iterationLimitNote, limit, limit, last)
	return res
}

// agentTools runs the tool calls of one turn in order and appends their
// results to the transcript; a failed tool is reported to the model, not
// to the step. A call that asks to end the plan (finish_plan) ends the
// step at once with its reason: the turn's later calls do not run.
func (r *runner) agentTools(ctx workflow.Context, step plan.Step, turn int, calls []activities.ToolCall, transcript []activities.Message, res *plan.StepResult) []activities.Message {
	for _, c := range calls {
		if reason := r.checkHistory(ctx); reason != "" {
			res.Error = reason
			return transcript
		}
		v := r.gate.check(ctx, step, c.Name, json.RawMessage(c.Arguments))
		if v.refusal != "" {
			// The agent sees the refusal as the tool's answer and decides.
			transcript = append(transcript, activities.Message{Role: roleTool, Content: "error: " + v.refusal, ToolCallID: c.ID})
			if ctx.Err() != nil {
				return transcript
			}
			continue
		}
		c.Arguments = string(v.args)
		if v.approved {
			r.files.reachedOutside(step.ID, c.Name+" (approved)")
		}
		out, err := r.callTool(ctx, step, c, fmt.Sprintf("%s · turn %d · tool %s", r.stepLabel(step), turn, c.Name))
		if note, ok := r.endsStep(step, err); ok {
			res.Error = note
			return transcript
		}
		content := out.Output
		switch {
		case err != nil:
			content = fmt.Sprintf("error: %v", err)
		case !out.Success:
			content = fmt.Sprintf("error: %s\n%s", out.Error, out.Output)
		}
		res.FilesChanged = append(res.FilesChanged, out.FilesChanged...)
		res.CommandsRun += out.CommandsRun
		transcript = append(transcript, activities.Message{Role: roleTool, Content: content, ToolCallID: c.ID})
		if ctx.Err() != nil {
			return transcript
		}
		if err == nil && out.Success && out.ExitPlan {
			exitPlan(res, out)
			return transcript
		}
	}
	return transcript
}
