package activities

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/planmode/planmode/llm"
	"github.com/planmode/planmode/llm/reply"
	"github.com/planmode/planmode/outputs"
	"github.com/planmode/planmode/plan"
	"github.com/planmode/planmode/prompts"
	"github.com/planmode/planmode/signals"
)

// The LLM activities. Each returns its usage (tokens, calls, cost) in its
// output. Errors are temporal ApplicationErrors returned unwrapped (see
// complete): LLMAuthError, LLMBadRequest, LLMNotFound, LLMContextLength,
// LLMConfigError and MalformedLLMOutput are non-retryable; rate limits,
// server faults, timeouts and network errors are retryable, rate limits
// after the provider's Retry-After.

// Clarify rewrites a vague goal into a clear one, answers it directly when
// no plan is needed, or asks questions when in.AskQuestions allows it.
// Questions are dropped when not allowed; a reply with no goal keeps the
// task's own.
func (a *Activities) Clarify(ctx context.Context, in ClarifyInput) (ClarifyOutput, error) {
	files, more := a.listFiles(in.Task.Context)
	data := prompts.ClarifyData{Task: in.Task, AskQuestions: in.AskQuestions,
		Answers: prompts.SortedAnswers(in.Answers), Files: files, MoreFiles: more}
	msgs, err := a.Prompts.Clarify(in.Prompts, data)
	if err != nil {
		return ClarifyOutput{}, llm.Fail(llm.ErrorTypeConfig, err, "cannot build the clarify prompt")
	}
	answer, usage, err := completeStructured(ctx, a, llm.Request{Phase: PhaseClarify, Messages: msgs}, inspection{},
		reply.ClarifySchema, (*reply.Clarify).Check)
	if err != nil {
		return ClarifyOutput{Usage: usage, Offline: a.Offline}, err
	}
	out := ClarifyOutput{Goal: strings.TrimSpace(answer.Goal), Usage: usage, Offline: a.Offline}
	if out.Goal == "" {
		out.Goal = in.Task.Goal
	}
	if !answer.NeedsPlan {
		out.DirectAnswer = answer.DirectAnswer
	}
	if in.AskQuestions && answer.NeedsPlan {
		out.Questions = answer.Questions
	}
	return out, nil
}

// GenerateOptions produces plan options, not yet scored: from a template
// without any LLM call when in.Template names one (or is "auto" and the
// goal's task type has one) and no feedback or earlier invalid options ask
// for something a template cannot give; else from the LLM, which may
// first inspect the task's workspace (Task.Context.WorkspaceRoot) with
// read-only tools. Option ids are "r<revision>-o<n>", plan ids the task id
// and the option id.
func (a *Activities) GenerateOptions(ctx context.Context, in OptionsInput) (OptionsOutput, error) {
	if out, ok, err := templateOptions(in, time.Now()); err != nil {
		return out, err
	} else if ok {
		for i := range out.Options {
			a.estimate(&out.Options[i].Plan)
		}
		return out, nil
	}
	if err := a.bringUp(ctx, in.Task.Context.WorkspaceRoot, in.Files); err != nil {
		return OptionsOutput{}, err
	}
	count := optionCount(in.Count)
	msgs, err := a.Prompts.Plan(in.Prompts, a.planData(in, count))
	if err != nil {
		return OptionsOutput{}, llm.Fail(llm.ErrorTypeConfig, err, "cannot build the plan prompt")
	}
	check := func(r *reply.Options) error { return r.Check(in.MaxSteps) }
	ins := inspection{workspace: in.Task.Context.WorkspaceRoot, planID: in.Task.ID, mcp: in.Inspect}
	answer, usage, err := completeStructured(ctx, a, llm.Request{Phase: PhasePlan, Messages: msgs}, ins,
		reply.OptionsSchema, check)
	if err != nil {
		return OptionsOutput{Usage: usage}, err
	}
	if len(answer.Options) > count {
		answer.Options = answer.Options[:count]
	}
	now := time.Now()
	out := OptionsOutput{Usage: usage}
	for i, r := range answer.Options {
		id := optionID(in.Revision, i+1)
		o := r.PlanOption(id, planID(in.Task, id), taskFor(in), now)
		a.estimate(&o.Plan)
		out.Options = append(out.Options, o)
	}
	return out, nil
}

// ExecuteLLMStep runs an llm step: one completion with the step's bounded
// context. The step's own model, temperature, token limit and system
// prompt apply. Output is cut to the output limit (OutputTruncated), the
// whole reply kept in the output store when there is one (OutputRef); an
// empty reply is a failed step, not an activity error.
func (a *Activities) ExecuteLLMStep(ctx context.Context, in StepInput) (plan.StepResult, error) {
	step := in.Context.Step
	cfg := plan.LLMConfig{Prompt: reply.DefaultPrompt(step.Title, step.Description)}
	if step.Config.LLM != nil {
		cfg = *step.Config.LLM
	}
	data := prompts.StepData{Context: in.Context, Prompt: cfg.Prompt, Workspace: in.Workspace}
	msgs, err := a.Prompts.Execute(in.Prompts, data, cfg.SystemPrompt)
	if err != nil {
		return plan.StepResult{}, llm.Fail(llm.ErrorTypeConfig, err, "cannot build the step prompt")
	}
	start := time.Now()
	resp, usage, err := a.complete(ctx, llm.Request{Phase: PhaseExecute, Model: cfg.Model, Temperature: cfg.Temperature,
		MaxTokens: cfg.MaxTokens, Messages: msgs})
	if err != nil {
		return plan.StepResult{}, err
	}
	content := resp.Content
	if resp.FinishReason == llm.FinishLength {
		content += "\n[the reply stopped at the token limit]"
	}
	res := plan.StepResult{Success: true, Usage: usage, Duration: plan.Duration(time.Since(start))}
	res.Output, res.OutputTruncated = boundOutput(content, a.outputLimit())
	if len(content) > plan.KeptOutputBytes {
		// The plan keeps only a head once the step is done (plan.Plan.CompactResult).
		res.OutputRef = a.keepOutput(ctx, outputNameFor(ctx, in.PlanID, step.ID, outputs.KindLLM, ""), content)
	}
	if strings.TrimSpace(resp.Content) == "" {
		res.Success, res.Error = false, "the model returned an empty reply"
	}
	return res, nil
}

// AgentTurn runs one turn of an agent step: the step's bounded context,
// the iteration count and what remains, then the step's own transcript.
// The reply's tool calls come back for the workflow to run; no tool calls
// means the step's answer is Content. On the last iteration no tools are
// offered, so the model answers.
func (a *Activities) AgentTurn(ctx context.Context, in AgentTurnInput) (AgentTurnOutput, error) {
	step := in.Context.Step
	agent := plan.AgentConfig{Prompt: reply.DefaultPrompt(step.Title, step.Description)}
	if step.Config.Agent != nil {
		agent = *step.Config.Agent
	}
	data := agentData(in, agent)
	var specs []llm.ToolSpec
	if !data.Final {
		specs = append(a.specs().Specs(agent.Tools), in.MCPTools...)
		specs = specs[:min(len(specs), plan.MaxStepTools)]
		for _, s := range specs {
			data.Tools = append(data.Tools, s.Name)
		}
	}
	msgs, err := a.Prompts.Agent(in.Prompts, data, in.Transcript)
	if err != nil {
		return AgentTurnOutput{}, llm.Fail(llm.ErrorTypeConfig, err, "cannot build the agent prompt")
	}
	resp, usage, err := a.complete(ctx, llm.Request{Phase: PhaseAgent, Messages: msgs, Tools: specs})
	if err != nil {
		return AgentTurnOutput{}, err
	}
	out := AgentTurnOutput{Content: resp.Content, ToolCalls: resp.ToolCalls, Usage: usage}
	if len(out.ToolCalls) == 0 && len(out.Content) > plan.KeptOutputBytes {
		// The step's answer: the plan keeps only its head once the step is
		// done (plan.Plan.CompactResult).
		out.OutputRef = a.keepOutput(ctx, outputNameFor(ctx, in.PlanID, step.ID, outputs.KindLLM, fmt.Sprint(in.Iteration)),
			out.Content)
	}
	return out, nil
}

// agentData fills the agent templates' data. Iterations count from 1;
// the cap is the smaller of the input's and the step's,
// signals.DefaultMaxIterationsPerStep when neither sets one.
func agentData(in AgentTurnInput, agent plan.AgentConfig) prompts.StepData {
	it := max(in.Iteration, 1)
	maxIt := in.MaxIterations
	if agent.MaxIterations > 0 && (maxIt <= 0 || agent.MaxIterations < maxIt) {
		maxIt = agent.MaxIterations
	}
	if maxIt <= 0 {
		maxIt = signals.DefaultMaxIterationsPerStep
	}
	final := it >= maxIt
	maxIt = max(maxIt, it)
	return prompts.StepData{Context: in.Context, Prompt: agent.Prompt, Workspace: in.Workspace, Iteration: it,
		MaxIterations: maxIt, Remaining: maxIt - it, Final: final}
}

// Reflect decides what to do after a step, from the step's bounded
// context, its result and the first of the steps not yet done.
//
// The model may first inspect in.Workspace with read-only tools, but only
// when the step may have left something there to look at: it changed
// files, ran commands or failed (see mayInspect). A step that succeeded
// without touching the workspace (a plain llm step, an agent that only
// read) is judged from its output, which the prompt shows, so its
// reflection carries no tool schemas: most reflections of a long plan
// are such steps, and the schemas were a fifth of a plan's prompt tokens.
func (a *Activities) Reflect(ctx context.Context, in ReflectInput) (plan.Reflection, error) {
	data := prompts.NewReflectData(in.Goal, in.Context, in.Result, in.Remaining, in.RemainingMore, in.Mode)
	msgs, err := a.Prompts.Reflect(in.Prompts, data)
	if err != nil {
		return plan.Reflection{}, llm.Fail(llm.ErrorTypeConfig, err, "cannot build the reflect prompt")
	}
	ins := inspection{stepID: in.Context.Step.ID}
	if mayInspect(data.Result, in.Context.Step.Status) {
		ins.workspace, ins.mcp = in.Workspace, in.Inspect
		if err := a.bringUp(ctx, in.Workspace, in.Files); err != nil {
			return plan.Reflection{}, err
		}
	}
	answer, usage, err := completeStructured(ctx, a, llm.Request{Phase: PhaseReflect, Messages: msgs}, ins,
		reply.ReflectSchema, (*reply.Reflect).Check)
	if err != nil {
		return plan.Reflection{Usage: usage}, err
	}
	r := answer.Reflection()
	r.Usage = usage
	return r, nil
}

// mayInspect reports whether the reflection after a step that ended with
// res (nil: none, the step's status tells) is offered the workspace
// tools: when the step failed, changed files or ran commands.
func mayInspect(res *plan.StepResult, status plan.StepStatus) bool {
	if res == nil {
		return status == plan.StepFailed
	}
	return !res.Success || len(res.FilesChanged) > 0 || res.CommandsRun > 0
}

// Summarize writes the final summary from a bounded list of the plan's
// steps. An empty reply gets a plain summary of the counts instead.
func (a *Activities) Summarize(ctx context.Context, in SummarizeInput) (SummarizeOutput, error) {
	digest := in.Digest
	if digest == nil {
		d := in.Plan.Digest()
		digest = &d
	}
	data := prompts.NewSummarizeData(in.Goal, in.Status, in.Partial, *digest)
	msgs, err := a.Prompts.Summarize(in.Prompts, data)
	if err != nil {
		return SummarizeOutput{}, llm.Fail(llm.ErrorTypeConfig, err, "cannot build the summary prompt")
	}
	resp, usage, err := a.complete(ctx, llm.Request{Phase: PhaseSummarize, Messages: msgs})
	if err != nil {
		return SummarizeOutput{}, err
	}
	summary := strings.TrimSpace(resp.Content)
	if summary == "" {
		summary = data.Plain()
	}
	return SummarizeOutput{Summary: summary, Usage: usage}, nil
}
