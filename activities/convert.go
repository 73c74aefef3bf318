package activities

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/planmode/planmode/plan"
)

// checkSteps normalizes and checks steps as the model wrote them: every
// step needs a title and a known action; an llm or agent step without its
// config gets one from its title and description; a tool step must name
// its tool; ids must be unique. With checkDeps, dependencies must name
// steps of the list (steps added to a running plan may name steps the
// reply does not list, so reflection leaves that to plan.Validate).
func checkSteps(steps []StepReply, checkDeps bool) error {
	ids := map[string]bool{}
	for i := range steps {
		s := &steps[i]
		if s.Title == "" {
			return fmt.Errorf("step %d has no title", i+1)
		}
		label := fmt.Sprintf("step %d (%q)", i+1, s.Title)
		if err := normalizeConfig(s, label); err != nil {
			return err
		}
		if s.ID != "" {
			if ids[s.ID] {
				return fmt.Errorf("%s repeats the id %q", label, s.ID)
			}
			ids[s.ID] = true
		}
	}
	if !checkDeps {
		return nil
	}
	for i, s := range steps {
		for _, d := range s.DependsOn {
			if !ids[d] {
				return fmt.Errorf("step %d (%q) depends on %q, which is not a step id", i+1, s.Title, d)
			}
		}
	}
	return nil
}

// fillIDs gives every step without an id one: "s<position>" when free,
// else the next free "s<N>".
func fillIDs(steps []StepReply) {
	used := map[string]bool{}
	for _, s := range steps {
		used[s.ID] = true
	}
	next := nextSeq(steps)
	for i := range steps {
		if steps[i].ID != "" {
			continue
		}
		id := fmt.Sprintf("s%d", i+1)
		if used[id] {
			id = fmt.Sprintf("s%d", next)
			next++
		}
		steps[i].ID = id
		used[id] = true
	}
}

// defaultPrompt is the prompt of an llm or agent step that gives none: its
// title and description.
func defaultPrompt(title, description string) string {
	return strings.TrimSpace(title + ". " + description)
}

// normalizeConfig checks a step's action and fills a missing llm or agent
// config.
func normalizeConfig(s *StepReply, label string) error {
	prompt := defaultPrompt(s.Title, s.Description)
	switch s.Action {
	case plan.ActionLLM:
		if s.Config.LLM == nil {
			s.Config.LLM = &plan.LLMConfig{}
		}
		if s.Config.LLM.Prompt == "" {
			s.Config.LLM.Prompt = prompt
		}
	case plan.ActionAgent:
		if s.Config.Agent == nil {
			s.Config.Agent = &plan.AgentConfig{}
		}
		if s.Config.Agent.Prompt == "" {
			s.Config.Agent.Prompt = prompt
		}
	case plan.ActionTool:
		if s.Config.Tool == nil || s.Config.Tool.Name == "" {
			return fmt.Errorf("%s is a tool step without config.tool.name", label)
		}
	case "":
		return fmt.Errorf("%s has no action: use llm, tool or agent", label)
	default:
		return fmt.Errorf("%s has the unknown action %q: use llm, tool or agent", label, s.Action)
	}
	return nil
}

// stepsFromReply turns checked step replies into pending plan steps.
// When sequential is set and no step names a dependency, each step depends
// on the one before: the model wrote an ordered list. Steps without an id
// keep none; the plan's edits give them one.
func stepsFromReply(replies []StepReply, sequential bool) []plan.Step {
	anyDeps := false
	for _, r := range replies {
		anyDeps = anyDeps || len(r.DependsOn) > 0
	}
	steps := make([]plan.Step, 0, len(replies))
	for i, r := range replies {
		s := plan.Step{
			ID: r.ID, Number: i + 1, Title: r.Title, Description: r.Description, Kind: r.Kind,
			Action: r.Action, Config: r.Config, DependsOn: r.DependsOn, MaxRetries: r.MaxRetries,
			Skippable: r.Skippable, Status: plan.StepPending,
			Estimated: plan.Duration(time.Duration(r.EstimatedSeconds * float64(time.Second))),
		}
		if sequential && !anyDeps && i > 0 && steps[i-1].ID != "" {
			s.DependsOn = []string{steps[i-1].ID}
		}
		if s.Action == plan.ActionAgent && s.Config.Agent != nil {
			s.RequiredTools = s.Config.Agent.Tools
		}
		steps = append(steps, s)
	}
	return steps
}

// nextSeq returns one more than the largest "s<N>" id among steps, at least
// 1, so that generated ids never collide with the model's.
func nextSeq(steps []StepReply) int {
	next := 1
	for _, s := range steps {
		var n int
		if _, err := fmt.Sscanf(s.ID, "s%d", &n); err == nil && fmt.Sprintf("s%d", n) == s.ID && n >= next {
			next = n + 1
		}
	}
	return next
}

// checkOptions normalizes and checks an options reply.
func checkOptions(r *OptionsReply) error {
	if len(r.Options) == 0 {
		return errors.New(`"options" is empty: give at least one option`)
	}
	for i := range r.Options {
		o := &r.Options[i]
		if strings.TrimSpace(o.Title) == "" {
			return fmt.Errorf("option %d has no title", i+1)
		}
		if len(o.Steps) == 0 {
			return fmt.Errorf("option %d (%q) has no steps", i+1, o.Title)
		}
		fillIDs(o.Steps)
		if err := checkSteps(o.Steps, true); err != nil {
			return fmt.Errorf("option %d (%q): %w", i+1, o.Title, err)
		}
		if c := o.Estimates.Confidence; c < 0 || c > 1 {
			return fmt.Errorf("option %d (%q) has confidence %v: use a number between 0 and 1", i+1, o.Title, c)
		}
	}
	return nil
}

// optionFromReply builds a draft option whose plan holds the reply's steps.
func optionFromReply(r OptionReply, id, planID string, task plan.Task, now time.Time) plan.Option {
	steps := stepsFromReply(r.Steps, true)
	p := plan.Plan{
		ID: planID, TaskID: task.ID, Title: r.Title, Description: r.Description, Steps: steps,
		Risks: r.Risks, CreatedAt: now, UpdatedAt: now, Version: 1, Status: plan.PlanDraft,
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

// checkReflect checks a reflect reply: a known decision with what it
// needs (step ids for a skip, edits for an edit, steps for a replan) and a
// confidence between 0 and 1.
func checkReflect(r *ReflectReply) error {
	if c := r.Confidence; c < 0 || c > 1 {
		return fmt.Errorf("confidence %v is not between 0 and 1", c)
	}
	switch r.Decision {
	case plan.DecisionContinue, plan.DecisionComplete:
		return nil
	case plan.DecisionSkip:
		if len(r.StepIDs) == 0 {
			return errors.New(`a "skip" decision lists the steps to skip in "stepIds"`)
		}
		return nil
	case plan.DecisionInsert, plan.DecisionAppend, plan.DecisionRemove, plan.DecisionUpdate:
		return checkEdits(r.Decision, r.Edits)
	case plan.DecisionReplan:
		if len(r.Steps) == 0 {
			return errors.New(`a "replan" decision gives the new remaining steps in "steps"`)
		}
		return checkSteps(r.Steps, false)
	case "":
		return errors.New(`"decision" is missing`)
	}
	return fmt.Errorf("%q is not a decision: use continue, skip, insert, append, remove, update, replan or complete",
		r.Decision)
}

// checkEdits checks the edits of an edit decision: each has a known op,
// the anchor or target the op needs and, to add a step, a step with a
// title and a known action.
func checkEdits(d plan.Decision, edits []plan.Edit) error {
	if len(edits) == 0 {
		return fmt.Errorf(`an %q decision lists its changes in "edits"`, d)
	}
	for i, e := range edits {
		label := fmt.Sprintf("edit %d (%s)", i+1, e.Op)
		switch e.Op {
		case plan.OpInsertAfter, plan.OpInsertBefore, plan.OpRemove, plan.OpRemoveAfter, plan.OpUpdate:
			if e.StepID == "" {
				return fmt.Errorf(`%s needs "stepId"`, label)
			}
		case plan.OpAppend:
		default:
			return fmt.Errorf("edit %d has the unknown op %q: use insertAfter, insertBefore, append, remove, "+
				"removeAfter or update", i+1, e.Op)
		}
		switch e.Op {
		case plan.OpInsertAfter, plan.OpInsertBefore, plan.OpAppend:
			if e.Step == nil || e.Step.Title == "" {
				return fmt.Errorf(`%s needs a "step" with a title`, label)
			}
			sr := StepReply{Title: e.Step.Title, Description: e.Step.Description, Action: e.Step.Action,
				Config: e.Step.Config}
			if err := normalizeConfig(&sr, label); err != nil {
				return err
			}
			e.Step.Config = sr.Config
		case plan.OpUpdate:
			if e.Step == nil {
				return fmt.Errorf(`%s needs a "step" with the fields to change`, label)
			}
		}
	}
	return nil
}

// reflectionFromReply turns a checked reflect reply into a reflection.
// Added steps are pending; steps without an id get one from the plan.
func reflectionFromReply(r ReflectReply) plan.Reflection {
	out := plan.Reflection{Decision: r.Decision, StepIDs: r.StepIDs, Reason: r.Reason, Confidence: r.Confidence,
		Response: r.Response, Edits: r.Edits}
	for i, e := range out.Edits {
		if e.Step != nil && e.Op != plan.OpUpdate && e.Step.Status == "" {
			s := *e.Step
			s.Status = plan.StepPending
			out.Edits[i].Step = &s
		}
	}
	if len(r.Steps) > 0 {
		out.Steps = stepsFromReply(r.Steps, false)
	}
	return out
}
