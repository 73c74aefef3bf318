package phases

import (
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/planmode/planmode/llm"
	"github.com/planmode/planmode/llm/reply"
	"github.com/planmode/planmode/plan"
	"github.com/planmode/planmode/prompts"
	"github.com/planmode/planmode/signals"
)

// LLMStep is the config of llm step s: its own, else its title and
// description as the prompt.
func LLMStep(s plan.Step) plan.LLMConfig {
	if s.Config.LLM != nil {
		return *s.Config.LLM
	}
	return plan.LLMConfig{Prompt: reply.DefaultPrompt(s.Title, s.Description)}
}

// StepAnswer is the output of an llm step that got resp, saying so when
// the token limit cut it, and whether the model said nothing.
func StepAnswer(resp llm.Response) (output string, empty bool) {
	output = resp.Content
	if resp.FinishReason == llm.FinishLength {
		output += "\n[the reply stopped at the token limit]"
	}
	return output, strings.TrimSpace(resp.Content) == ""
}

// AgentTurn fills the agent templates' data for turn iteration (counted
// from 1) of the agent step whose context is sc, in workspace ws, and
// returns the tools the turn is offered: those of offer the step's config
// names (nil names all), at most plan.MaxStepTools, and finish_step; none
// on the final turn. A turn after the first gets the step alone, without
// the goal and the steps around it (LaterTurnContext). The cap is the
// smaller of maxIterations and the step's own, else
// signals.DefaultMaxIterationsPerStep; the turn at the cap is the final
// one, so the model answers.
func AgentTurn(sc plan.StepContext, ws string, iteration, maxIterations int,
	offer func(names []string) []llm.ToolSpec) (prompts.StepData, []llm.ToolSpec) {
	sc = LaterTurnContext(sc, iteration)
	step := sc.Step
	agent := plan.AgentConfig{Prompt: reply.DefaultPrompt(step.Title, step.Description)}
	if step.Config.Agent != nil {
		agent = *step.Config.Agent
	}
	data := AgentData(sc, agent, ws, iteration, maxIterations)
	if data.Final {
		return data, nil
	}
	specs := offer(agent.Tools)
	specs = specs[:min(len(specs), plan.MaxStepTools)]
	for _, s := range specs {
		data.Tools = append(data.Tools, s.Name)
	}
	return data, withFinishStep(&data, specs)
}

// AgentData fills the agent templates' data for turn iteration (counted
// from 1) of a step whose context is sc, in workspace ws. The cap is the
// smaller of maxIterations and the step's own, else
// signals.DefaultMaxIterationsPerStep; the turn at the cap is the final
// one, which is offered no tools.
func AgentData(sc plan.StepContext, agent plan.AgentConfig, ws string, iteration, maxIterations int) prompts.StepData {
	it := max(iteration, 1)
	maxIt := maxIterations
	if agent.MaxIterations > 0 && (maxIt <= 0 || agent.MaxIterations < maxIt) {
		maxIt = agent.MaxIterations
	}
	if maxIt <= 0 {
		maxIt = signals.DefaultMaxIterationsPerStep
	}
	final := it >= maxIt
	maxIt = max(maxIt, it)
	return prompts.StepData{Context: sc, Prompt: agent.Prompt, Workspace: ws, Iteration: it,
		MaxIterations: maxIt, Remaining: maxIt - it, Final: final}
}

// MayInspect reports whether the reflection after a step that ended with
// res (nil: none, the step's status tells) is offered the workspace
// tools: when the step failed, changed files or ran commands. A step that
// succeeded without touching the workspace is judged from its output,
// which the prompt shows, so its reflection carries no tool schemas.
func MayInspect(res *plan.StepResult, status plan.StepStatus) bool {
	if res == nil {
		return status == plan.StepFailed
	}
	return !res.Success || len(res.FilesChanged) > 0 || res.CommandsRun > 0
}

// Bound cuts a step's output to limit bytes, on a rune boundary, saying
// how much was cut, and reports whether it cut anything. The note is
// counted in the limit.
func Bound(s string, limit int) (string, bool) {
	if len(s) <= limit {
		return s, false
	}
	note := fmt.Sprintf("\n… [output truncated to %d of %d bytes]", limit, len(s))
	keep := max(limit-len(note), 0)
	for keep > 0 && !utf8.RuneStart(s[keep]) {
		keep--
	}
	return s[:keep] + note, true
}

// Clarified reads a clarify reply: the clarified goal (the task's own,
// goal, when the reply gives none), the direct answer of a goal that
// needs no plan, and the questions for the user when ask allows them.
func Clarified(r reply.Clarify, goal string, ask bool) (clarified, direct string, questions []string) {
	clarified = strings.TrimSpace(r.Goal)
	if clarified == "" {
		clarified = goal
	}
	if !r.NeedsPlan {
		direct = r.DirectAnswer
	}
	if ask && r.NeedsPlan {
		questions = r.Questions
	}
	return clarified, direct, questions
}
