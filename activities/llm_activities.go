package activities

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/planmode/planmode/llm"
	"github.com/planmode/planmode/llm/phases"
	"github.com/planmode/planmode/llm/reply"
	"github.com/planmode/planmode/outputs"
	"github.com/planmode/planmode/plan"
	"github.com/planmode/planmode/prompts"
)

// The LLM activities. Each returns its usage (tokens, calls, cost) in its
// output. Errors are temporal ApplicationErrors returned unwrapped (see
// complete): LLMAuthError, LLMBadRequest, LLMNotFound, LLMContextLength,
// LLMConfigError and MalformedLLMOutput are non-retryable; rate limits,
// server faults, timeouts and network errors are retryable, rate limits
// after the provider's Retry-After. With llm.stream on, each heartbeats
// the text of its calls as it arrives (withText), naming the step when it
// is a step's or reflects on one.

// Clarify rewrites a vague goal into a clear one, answers it directly when
// no plan is needed, or asks questions when in.AskQuestions allows it.
// Questions are dropped when not allowed; a reply with no goal keeps the
// task's own.
func (m *Model) Clarify(ctx context.Context, in ClarifyInput) (ClarifyOutput, error) {
	ctx = m.withText(ctx, "")
	files, more := m.tools().folders().List(in.Task.Context)
	data := prompts.ClarifyData{Task: in.Task, AskQuestions: in.AskQuestions,
		Answers: prompts.SortedAnswers(in.Answers), Files: files, MoreFiles: more}
	msgs, err := m.Prompts.Clarify(in.Prompts, data)
	if err != nil {
		return ClarifyOutput{}, llm.Fail(llm.ErrorTypeConfig, err, "cannot build the clarify prompt")
	}
	answer, usage, err := llm.Structured(ctx, llm.Request{Phase: PhaseClarify, Messages: msgs}, reply.ClarifySchema,
		m.inspector(inspection{}), m.complete, (*reply.Clarify).Check)
	if err != nil {
		return ClarifyOutput{Usage: usage, Offline: m.Offline}, err
	}
	goal, direct, questions := phases.Clarified(answer, in.Task.Goal, in.AskQuestions)
	return ClarifyOutput{Goal: goal, DirectAnswer: direct, Questions: questions, Usage: usage, Offline: m.Offline}, nil
}

// GenerateOptions produces plan options, not yet scored: from a template
// without any LLM call when in.Template names one (or is "auto" and the
// goal's task type has one) and no feedback or earlier invalid options ask
// for something a template cannot give; else from the LLM, which may
// first inspect the task's workspace (Task.Context.WorkspaceRoot) with
// read-only tools. Option ids are "r<revision>-o<n>", plan ids the task id
// and the option id.
func (m *Model) GenerateOptions(ctx context.Context, in OptionsInput) (OptionsOutput, error) {
	ctx = m.withText(ctx, "")
	o := options(in)
	opt, name, ok, err := o.FromTemplate(time.Now())
	var unknown *phases.UnknownTemplate
	switch {
	case errors.As(err, &unknown):
		return OptionsOutput{}, fail(ErrorTypeUnknownTemplate, nil, unknown.Error())
	case ok:
		m.estimate(&opt.Plan)
		return OptionsOutput{Options: []plan.Option{opt}, FromTemplate: name}, nil
	}
	if err := m.bringUp(ctx, in.Task.Context.WorkspaceRoot, in.Files); err != nil {
		return OptionsOutput{}, err
	}
	files, more := m.tools().folders().List(in.Task.Context)
	msgs, err := m.Prompts.Plan(in.Prompts, o.Data(files, more, m.specs().Specs(nil)))
	if err != nil {
		return OptionsOutput{}, llm.Fail(llm.ErrorTypeConfig, err, "cannot build the plan prompt")
	}
	check := func(r *reply.Options) error { return r.Check(in.MaxSteps) }
	ins := inspection{workspace: in.Task.Context.WorkspaceRoot, planID: in.Task.ID, mcp: in.Inspect}
	answer, usage, err := llm.Structured(ctx, llm.Request{Phase: PhasePlan, Messages: msgs}, reply.OptionsSchema,
		m.inspector(ins), m.complete, check)
	if err != nil {
		return OptionsOutput{Usage: usage}, err
	}
	out := OptionsOutput{Options: o.FromReply(answer, time.Now()), Usage: usage}
	for i := range out.Options {
		m.estimate(&out.Options[i].Plan)
	}
	return out, nil
}

// ExecuteLLMStep runs an llm step: one completion with the step's bounded
// context. The step's own model, temperature, token limit and system
// prompt apply. Output is cut to the output limit (OutputTruncated), the
// whole reply kept in the output store when there is one (OutputRef); an
// empty reply is a failed step, not an activity error.
func (m *Model) ExecuteLLMStep(ctx context.Context, in StepInput) (plan.StepResult, error) {
	step := in.Context.Step
	ctx = m.withText(ctx, step.ID)
	cfg := phases.LLMStep(step)
	data := prompts.StepData{Context: in.Context, Prompt: cfg.Prompt, Workspace: in.Workspace}
	msgs, err := m.Prompts.Execute(in.Prompts, data, cfg.SystemPrompt)
	if err != nil {
		return plan.StepResult{}, llm.Fail(llm.ErrorTypeConfig, err, "cannot build the step prompt")
	}
	start := time.Now()
	resp, usage, err := m.complete(ctx, llm.Request{Phase: PhaseExecute, Model: cfg.Model, Temperature: cfg.Temperature,
		MaxTokens: cfg.MaxTokens, Messages: msgs})
	if err != nil {
		return plan.StepResult{}, err
	}
	content, empty := phases.StepAnswer(resp)
	res := plan.StepResult{Success: true, Usage: usage, Duration: plan.Duration(time.Since(start))}
	res.Output, res.OutputTruncated = phases.Bound(content, m.outputLimit())
	if len(content) > plan.KeptOutputBytes {
		// The plan keeps only a head once the step is done (plan.Plan.CompactResult).
		res.OutputRef = m.tools().keepOutput(ctx, outputNameFor(ctx, in.PlanID, step.ID, outputs.FromModel, ""), content)
	}
	if empty {
		res.Success, res.Error = false, "the model returned an empty reply"
	}
	return res, nil
}

// AgentTurn runs one turn of an agent step: the step's bounded context
// (after the first turn the step alone, without the goal and the steps
// around it), the iteration and its cap, then the step's own transcript
// (results the model already acted on cut to a head); phases.AgentTurn
// and phases.ActedOnView say how.
// The reply's tool calls come back for the workflow to run; no tool calls
// means the step's answer is Content, and a finish_step call among them
// (offered on every turn but the last) comes back read as
// Finish. On the last iteration no tools are offered, so the model
// answers.
func (m *Model) AgentTurn(ctx context.Context, in AgentTurnInput) (AgentTurnOutput, error) {
	step := in.Context.Step
	ctx = m.withText(ctx, step.ID)
	data, specs := phases.AgentTurn(in.Context, in.Workspace, in.Iteration, in.MaxIterations,
		func(names []string) []llm.ToolSpec { return append(m.specs().Specs(names), in.MCPTools...) })
	msgs, err := m.Prompts.Agent(in.Prompts, data, phases.ActedOnView(in.Transcript))
	if err != nil {
		return AgentTurnOutput{}, llm.Fail(llm.ErrorTypeConfig, err, "cannot build the agent prompt")
	}
	resp, usage, err := m.complete(ctx, llm.Request{Phase: PhaseAgent, Messages: msgs, Tools: specs})
	if err != nil {
		return AgentTurnOutput{}, err
	}
	out := AgentTurnOutput{Content: resp.Content, ToolCalls: resp.ToolCalls, Usage: usage}
	out.Finish = m.readFinish(ctx, in, out.ToolCalls)
	if len(out.ToolCalls) == 0 && len(out.Content) > plan.KeptOutputBytes {
		// The step's answer: the plan keeps only its head once the step is
		// done (plan.Plan.CompactResult).
		out.OutputRef = m.tools().keepOutput(ctx, outputNameFor(ctx, in.PlanID, step.ID, outputs.FromModel, fmt.Sprint(in.Iteration)),
			out.Content)
	}
	return out, nil
}

// Reflect decides what to do after a step, from the step's bounded
// context, its result and the first of the steps not yet done.
//
// The model may first inspect in.Workspace with read-only tools, but only
// when the step may have left something there to look at: it changed
// files, ran commands or failed (phases.MayInspect). A step that succeeded
// without touching the workspace (a plain llm step, an agent that only
// read) is judged from its output, which the prompt shows, so its
// reflection carries no tool schemas: most reflections of a long plan
// are such steps, and the schemas were a fifth of a plan's prompt tokens.
func (m *Model) Reflect(ctx context.Context, in ReflectInput) (plan.Reflection, error) {
	ctx = m.withText(ctx, in.Context.Step.ID)
	data := prompts.NewReflectData(in.Context.Goal, in.Context, in.Result, in.Remaining, in.RemainingMore, in.Mode)
	msgs, err := m.Prompts.Reflect(in.Prompts, data)
	if err != nil {
		return plan.Reflection{}, llm.Fail(llm.ErrorTypeConfig, err, "cannot build the reflect prompt")
	}
	ins := inspection{stepID: in.Context.Step.ID}
	if phases.MayInspect(data.Result, in.Context.Step.Status) {
		ins.workspace, ins.mcp = in.Workspace, in.Inspect
		if err := m.bringUp(ctx, in.Workspace, in.Files); err != nil {
			return plan.Reflection{}, err
		}
	}
	answer, usage, err := llm.Structured(ctx, llm.Request{Phase: PhaseReflect, Messages: msgs}, reply.ReflectSchema,
		m.inspector(ins), m.complete, (*reply.Reflect).Check)
	if err != nil {
		return plan.Reflection{Usage: usage}, err
	}
	r := answer.Reflection()
	r.Usage = usage
	return r, nil
}

// Summarize writes the final summary from a bounded list of the plan's
// steps. An empty reply gets a plain summary of the counts instead.
func (m *Model) Summarize(ctx context.Context, in SummarizeInput) (SummarizeOutput, error) {
	ctx = m.withText(ctx, "")
	var digest plan.PlanDigest // no plan was selected
	if in.Digest != nil {
		digest = *in.Digest
	}
	data := prompts.NewSummarizeData(in.Goal, in.Status, in.Partial, digest)
	msgs, err := m.Prompts.Summarize(in.Prompts, data)
	if err != nil {
		return SummarizeOutput{}, llm.Fail(llm.ErrorTypeConfig, err, "cannot build the summary prompt")
	}
	resp, usage, err := m.complete(ctx, llm.Request{Phase: PhaseSummarize, Messages: msgs})
	if err != nil {
		return SummarizeOutput{}, err
	}
	summary := strings.TrimSpace(resp.Content)
	if summary == "" {
		summary = data.Plain()
	}
	return SummarizeOutput{Summary: summary, Usage: usage}, nil
}

// bringUp brings workspace ws to the files ref names before the model
// looks at it.
func (m *Model) bringUp(ctx context.Context, ws string, ref FilesRef) error {
	return refusal(m.tools().folders().BringUp(ctx, ws, ref.ref()))
}
