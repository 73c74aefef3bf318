package reply

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/planmode/planmode/plan"
)

// The checks normalize a reply as the model wrote it and refuse what
// planmode cannot use. Their errors are written for the model: the one
// repair request quotes them.

// Check normalizes a clarify reply: a reply that says no plan is needed
// but gives no answer is read as needing a plan. It refuses nothing.
func (c *Clarify) Check() error {
	if !c.NeedsPlan && strings.TrimSpace(c.DirectAnswer) == "" {
		c.NeedsPlan = true
	}
	return nil
}

// Check normalizes and checks an options reply: every option needs a
// title, steps (see checkSteps, ids filled in) and a confidence between 0
// and 1; then no option may have more than maxSteps steps (zero: no
// limit).
func (r *Options) Check(maxSteps int) error {
	if err := r.check(); err != nil {
		return err
	}
	for i, o := range r.Options {
		if maxSteps > 0 && len(o.Steps) > maxSteps {
			return fmt.Errorf("option %d (%q) has %d steps; the most allowed is %d", i+1, o.Title, len(o.Steps),
				maxSteps)
		}
	}
	return nil
}

// check normalizes and checks every option.
func (r *Options) check() error {
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

// Check checks a reflect reply: a known decision with what it needs (step
// ids for a skip, edits for an edit, steps for a replan) and a confidence
// between 0 and 1. Steps it adds get the config their action needs.
func (r *Reflect) Check() error {
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

// checkSteps normalizes and checks steps as the model wrote them: every
// step needs a title and a known action; an llm or agent step without its
// config gets one from its title and description; a tool step must name
// its tool; ids must be unique; a retry delay must be a duration and a
// skip condition well-formed. With checkDeps, dependencies, fallbacks and
// the steps a skip condition names must be steps of the list (steps added
// to a running plan may name steps the reply does not list, so reflection
// leaves that to plan.Validate, which also applies the plan's bounds).
func checkSteps(steps []Step, checkDeps bool) error {
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
		if err := checkResilience(*s, label, nil); err != nil {
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
		label := fmt.Sprintf("step %d (%q)", i+1, s.Title)
		for _, d := range s.deps() {
			if !ids[d] {
				return fmt.Errorf("%s depends on %q, which is not a step id", label, d)
			}
		}
		if err := checkResilience(s, label, ids); err != nil {
			return err
		}
	}
	return nil
}

// checkResilience checks a step's retry delay, fallback and skip
// condition; with ids, the fallback and the condition's steps must be
// among them.
func checkResilience(s Step, label string, ids map[string]bool) error {
	if _, err := parseDelay(s.RetryDelay); err != nil {
		return fmt.Errorf("%s: %w", label, err)
	}
	if f := s.FallbackStepID; f != "" {
		if f == s.ID {
			return fmt.Errorf("%s names itself as its fallback: name another step or none", label)
		}
		if ids != nil && !ids[f] {
			return fmt.Errorf("%s has the fallback %q, which is not a step id", label, f)
		}
	}
	if s.SkipCondition != "" {
		if err := plan.CheckCondition(s.SkipCondition, ids); err != nil {
			return fmt.Errorf("%s: skipCondition: %w", label, err)
		}
	}
	return nil
}

// parseDelay reads a retry delay: "" is none, anything else a Go duration
// with a unit.
func parseDelay(s string) (plan.Duration, error) {
	if s == "" {
		return 0, nil
	}
	d, err := time.ParseDuration(s)
	if err != nil {
		return 0, fmt.Errorf("retryDelay %q is not a duration: write a number with a unit such as \"2s\" or \"1m\"", s)
	}
	return plan.Duration(d), nil
}

// deps returns the ids the step depends on; none when it gives no list.
func (s Step) deps() []string {
	if s.DependsOn == nil {
		return nil
	}
	return *s.DependsOn
}

// fillIDs gives every step without an id one: "s<position>" when free,
// else the next free "s<N>".
func fillIDs(steps []Step) {
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

// nextSeq returns one more than the largest "s<N>" id among steps, at least
// 1, so that generated ids never collide with the model's.
func nextSeq(steps []Step) int {
	next := 1
	for _, s := range steps {
		var n int
		if _, err := fmt.Sscanf(s.ID, "s%d", &n); err == nil && fmt.Sprintf("s%d", n) == s.ID && n >= next {
			next = n + 1
		}
	}
	return next
}

// DefaultPrompt is the prompt of an llm or agent step that gives none: its
// title and description.
func DefaultPrompt(title, description string) string {
	return strings.TrimSpace(title + ". " + description)
}

// normalizeConfig checks a step's action and fills a missing llm or agent
// config; a tool step must name its tool and give its params, if any, as
// an object.
func normalizeConfig(s *Step, label string) error {
	prompt := DefaultPrompt(s.Title, s.Description)
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
		if _, err := s.Config.Tool.params(); err != nil {
			return fmt.Errorf("%s: config.tool.params is not a JSON object", label)
		}
	case "":
		return fmt.Errorf("%s has no action: use llm, tool or agent", label)
	default:
		return fmt.Errorf("%s has the unknown action %q: use llm, tool or agent", label, s.Action)
	}
	return nil
}

// checkEdits checks the edits of an edit decision: each has a known op,
// the anchor or target the op needs and, to add a step, a step with a
// title and a known action.
func checkEdits(d plan.Decision, edits []Edit) error {
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
			if err := normalizeConfig(e.Step, label); err != nil {
				return err
			}
		case plan.OpUpdate:
			if e.Step == nil {
				return fmt.Errorf(`%s needs a "step" with the fields to change`, label)
			}
		}
		if e.Step != nil {
			if err := checkResilience(*e.Step, label, nil); err != nil {
				return err
			}
		}
	}
	return nil
}

// params decodes the tool's params: nil when there are none, an error
// when they are not a JSON object.
func (t ToolConfig) params() (map[string]any, error) {
	if len(bytes.TrimSpace(t.Params)) == 0 {
		return nil, nil
	}
	var m map[string]any
	if err := json.Unmarshal(t.Params, &m); err != nil {
		return nil, err
	}
	return m, nil
}
