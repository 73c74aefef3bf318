package reply

import (
	"encoding/json"
	"fmt"
	"time"

	"github.com/planmode/planmode/plan"
)

// The conversions below take checked replies: Check has filled the
// configs and refused tool params that are not an object.

// PlanOption builds a draft plan option from a checked option: a plan
// holding its steps, ordered by their dependsOn lists (see PlanSteps),
// with the plan id planID for the task.
func (r Option) PlanOption(id, planID string, task plan.Task, now time.Time) plan.Option {
	steps := PlanSteps(r.Steps, true)
	var risks []plan.Risk
	for _, k := range r.Risks {
		risks = append(risks, plan.Risk(k))
	}
	p := plan.Plan{
		ID: planID, TaskID: task.ID, Title: r.Title, Description: r.Description, Steps: steps,
		Risks: risks, CreatedAt: now, UpdatedAt: now, Version: 1, Status: plan.PlanDraft,
		NextStepSeq: nextSeq(r.Steps),
		Estimates: plan.Estimates{
			Duration:   plan.Duration(time.Duration(r.Estimates.DurationMinutes * float64(time.Minute))),
			Complexity: r.Estimates.Complexity,
			Confidence: r.Estimates.Confidence,
		},
	}
	if p.Estimates.Duration == 0 {
		var sum plan.Duration
		for _, s := range steps {
			sum += s.Estimated
		}
		p.Estimates.Duration = sum
	}
	return plan.Option{ID: id, Title: r.Title, Description: r.Description, Plan: p, Pros: r.Pros, Cons: r.Cons}
}

// PlanSteps turns checked step replies into pending plan steps, numbered
// from 1. A step runs after the steps its dependsOn names; an empty list
// makes it independent, free to run beside others. When sequential is set
// and no step carries dependsOn at all, the model wrote an ordered list
// (as older prompts asked, and as a model that ignores the field writes):
// each step depends on the one before, fallback steps left out of the
// chain, since they run only in another's place and a step waiting on one
// would wait for ever. Steps without an id keep none; the plan's edits
// give them one.
func PlanSteps(replies []Step, sequential bool) []plan.Step {
	ordered := sequential
	fallbacks := map[string]bool{}
	for _, r := range replies {
		ordered = ordered && r.DependsOn == nil
		if r.FallbackStepID != "" && r.FallbackStepID != r.ID {
			fallbacks[r.FallbackStepID] = true
		}
	}
	steps := make([]plan.Step, 0, len(replies))
	prev := ""
	for i, r := range replies {
		s := r.planStep()
		s.Number, s.Status = i+1, plan.StepPending
		if ordered && s.ID != "" && !fallbacks[s.ID] {
			if prev != "" {
				s.DependsOn = []string{prev}
			}
			prev = s.ID
		}
		steps = append(steps, s)
	}
	return steps
}

// planStep is the plan step a step reply describes, with no number or
// status: an update edit changes only the fields it gives (a dependsOn of
// [] clears the dependencies).
func (r Step) planStep() plan.Step {
	s := plan.Step{
		ID: r.ID, Title: r.Title, Description: r.Description, Kind: r.Kind, Action: r.Action,
		Config: r.Config.plan(), MaxRetries: r.MaxRetries, Skippable: r.Skippable,
		SkipCondition: r.SkipCondition, FallbackStepID: r.FallbackStepID,
		Estimated: plan.Duration(time.Duration(r.EstimatedSeconds * float64(time.Second))),
	}
	if r.DependsOn != nil {
		s.DependsOn = append([]string{}, *r.DependsOn...)
	}
	s.RetryDelay, _ = parseDelay(r.RetryDelay) // Check refused a delay that does not parse
	if s.Action == plan.ActionAgent && s.Config.Agent != nil {
		s.RequiredTools = s.Config.Agent.Tools
	}
	return s
}

// plan returns the plan form of a checked config.
func (c StepConfig) plan() plan.StepConfig {
	out := plan.StepConfig{LLM: c.LLM, Agent: c.Agent}
	if c.Tool != nil {
		params, _ := c.Tool.params() // Check refused params that are not an object
		out.Tool = &plan.ToolConfig{Name: c.Tool.Name, Params: params, ValidateOutput: c.Tool.ValidateOutput}
	}
	return out
}

// ConfigOf returns the reply form of a plan step's config: what a model
// writes for it. It fails when a tool step's params do not encode as JSON.
func ConfigOf(c plan.StepConfig) (StepConfig, error) {
	out := StepConfig{LLM: c.LLM, Agent: c.Agent}
	if c.Tool != nil {
		out.Tool = &ToolConfig{Name: c.Tool.Name, ValidateOutput: c.Tool.ValidateOutput}
		if len(c.Tool.Params) > 0 {
			raw, err := json.Marshal(c.Tool.Params)
			if err != nil {
				return StepConfig{}, fmt.Errorf("tool %s params: %w", c.Tool.Name, err)
			}
			out.Tool.Params = raw
		}
	}
	return out, nil
}

// Reflection turns a checked reflect reply into a reflection. Added steps
// are pending; steps without an id get one from the plan.
func (r Reflect) Reflection() plan.Reflection {
	out := plan.Reflection{Decision: r.Decision, StepIDs: r.StepIDs, Reason: r.Reason, Confidence: r.Confidence,
		Response: r.Response}
	for _, e := range r.Edits {
		pe := plan.Edit{Op: e.Op, StepID: e.StepID}
		if e.Step != nil {
			s := e.Step.planStep()
			if e.Op != plan.OpUpdate {
				s.Status = plan.StepPending
			}
			pe.Step = &s
		}
		out.Edits = append(out.Edits, pe)
	}
	if len(r.Steps) > 0 {
		out.Steps = PlanSteps(r.Steps, false)
	}
	return out
}
