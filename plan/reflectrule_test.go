package plan

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
)

func TestNeedsReflection(t *testing.T) {
	// base is a three-step chain whose first step just completed at its
	// first try; each case changes one thing.
	base := func() Plan {
		p := withStatus(chain(3), StepCompleted)
		p.Steps[0].Result = &StepResult{Success: true, Output: "done", Attempts: 1}
		return p
	}
	agent := func(p *Plan) {
		p.Steps[0].Action, p.Steps[0].Config = ActionAgent, StepConfig{Agent: &AgentConfig{Prompt: "read and note"}}
	}
	tool := func(validate bool) func(p *Plan) {
		return func(p *Plan) {
			p.Steps[0].Action = ActionTool
			p.Steps[0].Config = StepConfig{Tool: &ToolConfig{Name: ToolReadFile, ValidateOutput: validate}}
		}
	}
	for _, tc := range []struct {
		name  string
		edit  func(p *Plan)
		facts ReflectionFacts
		id    string
		need  bool
		why   string
	}{
		{name: "llm step that answered", edit: func(*Plan) {}, why: ReflectionSkippedReason},
		{name: "agent step that answered", edit: agent, why: ReflectionSkippedReason},
		{name: "tool step that succeeded", edit: tool(false), why: ReflectionSkippedReason},
		{name: "complete mode", edit: func(*Plan) {}, facts: ReflectionFacts{EveryStep: true}, need: true,
			why: "the execution mode reflects after every step"},
		{name: "something pending", edit: func(*Plan) {}, facts: ReflectionFacts{Pending: "a plan change waits"}, need: true,
			why: "a plan change waits"},
		{name: "failed", edit: func(p *Plan) {
			p.Steps[0].Status, p.Steps[0].Result.Success, p.Steps[0].Result.Error = StepFailed, false, "boom"
		}, need: true, why: "the step did not succeed"},
		{name: "succeeded with an error", edit: func(p *Plan) { p.Steps[0].Result.Error = "partial" }, need: true,
			why: "the step did not succeed"},
		{name: "retried", edit: func(p *Plan) { p.Steps[0].Result.Attempts = 2 }, need: true,
			why: "the step was tried more than once"},
		{name: "rescued by a fallback", edit: func(p *Plan) { p.Steps[0].Result.FallbackUsed = "s9" }, need: true,
			why: "a fallback ran in the step's place"},
		{name: "clashed", edit: func(p *Plan) { p.Steps[0].Result.Clashes = []Clash{{Attempt: 1, Rerun: true}} }, need: true,
			why: "the step's files clashed with a step beside it"},
		{name: "ended the plan", edit: func(p *Plan) { p.Steps[0].Result.EndedPlan = true }, need: true,
			why: "the step ended the plan"},
		{name: "agent at its iteration limit", edit: func(p *Plan) {
			agent(p)
			p.Steps[0].Result.IterationLimitReached = true
		}, need: true, why: "the agent stopped at its iteration limit"},
		{name: "tool output to check", edit: tool(true), need: true, why: "the plan asks for the tool's output to be checked"},
		{name: "unknown action", edit: func(p *Plan) { p.Steps[0].Action = "dance" }, need: true,
			why: "the step's action is unknown"},
		{name: "a later skip condition reads it", edit: func(p *Plan) { p.Steps[2].SkipCondition = "s1.completed" },
			need: true, why: "the skip condition of step s3 reads this step"},
		{name: "a later skip condition reads another step", edit: func(p *Plan) {
			p.Steps[2].SkipCondition = "s2.failed"
		}, why: ReflectionSkippedReason},
		{name: "the last step", edit: func(p *Plan) {
			p.Steps[1].Status, p.Steps[2].Status = StepCompleted, StepCompleted
			p.Steps[2].Result = &StepResult{Success: true, Attempts: 1}
		}, id: "s3", need: true, why: "the last step: the reflection may find the goal met or short"},
		{name: "last but a step runs beside it", edit: func(p *Plan) {
			p.Steps[1].Status, p.Steps[2].Status = StepRunning, StepCompleted
			p.Steps[2].Result = &StepResult{Success: true, Attempts: 1}
		}, id: "s3", why: ReflectionSkippedReason},
		{name: "last but for an unused fallback", edit: func(p *Plan) {
			p.Steps[0].FallbackStepID = "s3"
			p.Steps[1].Status = StepCompleted
			p.Steps[1].Result = &StepResult{Success: true, Attempts: 1}
		}, id: "s2", need: true, why: "the last step: the reflection may find the goal met or short"},
		{name: "the plan changed while it ran", edit: func(p *Plan) {
			start := t0.Add(time.Minute)
			p.Steps[0].StartedAt = &start
			p.UpdateHistory = []Update{{At: t0, Type: UpdateInsert, Actor: ActorUser, Version: 2},
				{At: start.Add(time.Second), Type: UpdateUpdate, Actor: ActorUser, Version: 3}}
		}, need: true, why: "the plan changed while the step ran"},
		{name: "the plan changed before it ran", edit: func(p *Plan) {
			start := t0.Add(time.Minute)
			p.Steps[0].StartedAt = &start
			p.UpdateHistory = []Update{{At: t0, Type: UpdateInsert, Actor: ActorUser, Version: 2}}
		}, why: ReflectionSkippedReason},
		{name: "no result", edit: func(p *Plan) { p.Steps[0].Result = nil }, need: true, why: "the step has no result"},
		{name: "no such step", edit: func(*Plan) {}, id: "s9", need: true, why: "the step has no result"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := base()
			tc.edit(&p)
			id := tc.id
			if id == "" {
				id = "s1"
			}
			need, why := NeedsReflection(&p, id, tc.facts)
			assert.Equal(t, tc.need, need)
			assert.Equal(t, tc.why, why)
		})
	}
}
