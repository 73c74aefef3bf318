package plan

import (
	"fmt"
	"strings"
)

// Validation issue codes. Errors make a plan invalid; warnings do not.
const (
	CodeEmptyPlan          = "EMPTY_PLAN"
	CodeTooManySteps       = "TOO_MANY_STEPS"
	CodeMissingStepID      = "MISSING_STEP_ID"
	CodeDuplicateStepID    = "DUPLICATE_STEP_ID"
	CodeInvalidActionType  = "INVALID_ACTION_TYPE"
	CodeMissingConfig      = "MISSING_CONFIG"
	CodeInvalidDependency  = "INVALID_DEPENDENCY"
	CodeSelfDependency     = "SELF_DEPENDENCY"
	CodeCircularDependency = "CIRCULAR_DEPENDENCY"
	CodeUnknownFallback    = "UNKNOWN_FALLBACK"
	CodeSelfFallback       = "SELF_FALLBACK"
	CodeInvalidRetries     = "INVALID_RETRIES"
	CodeInvalidCondition   = "INVALID_CONDITION"
	// CodeTooLarge: a text, a list or the params of a step are beyond
	// their bound (see MaxStepTextBytes and its neighbours).
	CodeTooLarge = "TOO_LARGE"
	// CodeOutOfRange: a number or duration is negative or beyond its
	// bound (estimate, iterations, tokens, temperature).
	CodeOutOfRange = "OUT_OF_RANGE"
	// CodeUnknownTool: a tool or agent step names a tool that Limits.Tools
	// does not list.
	CodeUnknownTool = "UNKNOWN_TOOL"

	// Warnings.
	CodeLongPlan     = "LONG_PLAN"
	CodeMissingTitle = "MISSING_TITLE"
)

// DefaultWarnSteps is the plan length above which Validate warns that the
// plan may be better split (LONG_PLAN), unless Limits.WarnSteps sets
// another.
const DefaultWarnSteps = 10

// Issue is one validation error or warning.
type Issue struct {
	Code    string `json:"code"`
	Message string `json:"message"`
	StepID  string `json:"stepId,omitempty"`
	Field   string `json:"field,omitempty"`
}

// String renders the issue as "CODE [step]: message".
func (i Issue) String() string {
	if i.StepID != "" {
		return fmt.Sprintf("%s [%s]: %s", i.Code, i.StepID, i.Message)
	}
	return fmt.Sprintf("%s: %s", i.Code, i.Message)
}

// ValidationResult lists every problem found in a plan.
type ValidationResult struct {
	Valid    bool    `json:"valid"`
	Errors   []Issue `json:"errors,omitempty"`
	Warnings []Issue `json:"warnings,omitempty"`
}

// Messages returns the errors followed by the warnings as strings, for
// logs and for DroppedOption.Issues.
func (r ValidationResult) Messages() []string {
	out := make([]string, 0, len(r.Errors)+len(r.Warnings))
	for _, i := range r.Errors {
		out = append(out, i.String())
	}
	for _, i := range r.Warnings {
		out = append(out, i.String())
	}
	return out
}

// validator collects issues in a deterministic order: plan-wide issues
// first, then each step's in plan order, then dependency cycles.
type validator struct {
	res ValidationResult
}

func (v *validator) err(code, stepID, field, format string, args ...any) {
	v.res.Errors = append(v.res.Errors, Issue{Code: code, StepID: stepID, Field: field, Message: fmt.Sprintf(format, args...)})
}

func (v *validator) warn(code, stepID, field, format string, args ...any) {
	v.res.Warnings = append(v.res.Warnings, Issue{Code: code, StepID: stepID, Field: field, Message: fmt.Sprintf(format, args...)})
}

// Validate checks p's structure (at least one step, each with a unique id,
// known action types with their config, dependencies and fallbacks that
// name other steps of the plan without a cycle, retries, skip conditions,
// known tools) and the bounds of limits.go (lowered by lim), and returns
// every error and warning (the Code* constants), never stopping at the
// first. The result is Valid when there are no errors.
func Validate(p Plan, lim Limits) ValidationResult {
	v := &validator{}
	n := len(p.Steps)
	if n == 0 {
		v.err(CodeEmptyPlan, "", "steps", "plan must have at least one step")
	}
	if most := lim.maxSteps(); n > most {
		v.err(CodeTooManySteps, "", "steps", "plan has %d steps, more than the maximum of %d", n, most)
	}
	v.checkPlanBounds(&p)
	warnAt := lim.WarnSteps
	if warnAt <= 0 {
		warnAt = DefaultWarnSteps
	}
	if n > warnAt {
		v.warn(CodeLongPlan, "", "steps", "plan has %d steps, more than %d: consider splitting it", n, warnAt)
	}
	ids := make(map[string]bool, n)
	for _, s := range p.Steps {
		if s.ID != "" {
			ids[s.ID] = true
		}
	}
	seen := make(map[string]bool, n)
	for i := range p.Steps {
		s := &p.Steps[i]
		v.checkIdentity(s, i, seen)
		v.checkAction(s)
		v.checkLinks(s, ids)
		v.checkStepBounds(s, lim)
		v.checkTools(s, lim.Tools)
	}
	v.checkCycles(p.Steps)
	v.res.Valid = len(v.res.Errors) == 0
	return v.res
}

func (v *validator) checkIdentity(s *Step, i int, seen map[string]bool) {
	switch {
	case strings.TrimSpace(s.ID) == "":
		v.err(CodeMissingStepID, "", "id", "step %d has no id", i+1)
	case seen[s.ID]:
		v.err(CodeDuplicateStepID, s.ID, "id", "step id %q is used more than once", s.ID)
	}
	seen[s.ID] = true
	if strings.TrimSpace(s.Title) == "" {
		v.warn(CodeMissingTitle, s.ID, "title", "step %d has no title", i+1)
	}
	switch {
	case s.MaxRetries < 0:
		v.err(CodeInvalidRetries, s.ID, "maxRetries", "maxRetries %d must not be negative", s.MaxRetries)
	case s.MaxRetries > MaxStepRetries:
		v.err(CodeInvalidRetries, s.ID, "maxRetries", "maxRetries %d: at most %d", s.MaxRetries, MaxStepRetries)
	}
	switch {
	case s.RetryDelay < 0:
		v.err(CodeInvalidRetries, s.ID, "retryDelay", "retryDelay %s must not be negative", s.RetryDelay)
	case s.RetryDelay > MaxRetryDelay:
		v.err(CodeInvalidRetries, s.ID, "retryDelay", "retryDelay %s: at most %s", s.RetryDelay, MaxRetryDelay)
	}
}

// checkAction checks that the action is known and carries its config.
func (v *validator) checkAction(s *Step) {
	c := s.Config
	switch s.Action {
	case ActionLLM:
		if c.LLM == nil || strings.TrimSpace(c.LLM.Prompt) == "" {
			v.err(CodeMissingConfig, s.ID, "config.llm", "llm step needs config.llm with a prompt")
		}
	case ActionTool:
		if c.Tool == nil || strings.TrimSpace(c.Tool.Name) == "" {
			v.err(CodeMissingConfig, s.ID, "config.tool", "tool step needs config.tool with a name")
		}
	case ActionAgent:
		if c.Agent == nil || strings.TrimSpace(c.Agent.Prompt) == "" {
			v.err(CodeMissingConfig, s.ID, "config.agent", "agent step needs config.agent with a prompt")
		}
	default:
		v.err(CodeInvalidActionType, s.ID, "action", "invalid action type %q: want llm, tool or agent", s.Action)
	}
}

// checkLinks checks dependencies, the fallback and the skip condition.
func (v *validator) checkLinks(s *Step, ids map[string]bool) {
	for _, d := range s.DependsOn {
		switch {
		case d == s.ID:
			v.err(CodeSelfDependency, s.ID, "dependsOn", "step depends on itself")
		case !ids[d]:
			v.err(CodeInvalidDependency, s.ID, "dependsOn", "step depends on unknown step %q", d)
		}
	}
	switch f := s.FallbackStepID; {
	case f == "":
	case f == s.ID:
		v.err(CodeSelfFallback, s.ID, "fallbackStepId", "step is its own fallback")
	case !ids[f]:
		v.err(CodeUnknownFallback, s.ID, "fallbackStepId", "fallback names unknown step %q", f)
	}
	if s.SkipCondition != "" {
		if err := CheckCondition(s.SkipCondition, ids); err != nil {
			v.err(CodeInvalidCondition, s.ID, "skipCondition", "%v", err)
		}
	}
}

// checkCycles reports every dependency cycle once, naming it as
// "a → b → c → a" where each step depends on the next. Self-dependencies
// and unknown ids are reported elsewhere and ignored here.
func (v *validator) checkCycles(steps []Step) {
	index := make(map[string]int, len(steps))
	for i, s := range steps {
		if _, dup := index[s.ID]; !dup {
			index[s.ID] = i
		}
	}
	const (
		white = iota
		grey
		black
	)
	color := make([]int, len(steps))
	var stack []int
	var visit func(i int)
	visit = func(i int) {
		color[i] = grey
		stack = append(stack, i)
		for _, d := range steps[i].DependsOn {
			j, ok := index[d]
			if !ok || j == i {
				continue
			}
			switch color[j] {
			case white:
				visit(j)
			case grey:
				v.reportCycle(steps, stack, j)
			}
		}
		stack = stack[:len(stack)-1]
		color[i] = black
	}
	for i := range steps {
		if color[i] == white {
			visit(i)
		}
	}
}

// reportCycle reports the cycle on the stack that starts at step j,
// rotated to start at its earliest step in plan order.
func (v *validator) reportCycle(steps []Step, stack []int, j int) {
	start := len(stack) - 1
	for start >= 0 && stack[start] != j {
		start--
	}
	cycle := stack[start:]
	first := 0
	for k := range cycle {
		if cycle[k] < cycle[first] {
			first = k
		}
	}
	names := make([]string, 0, len(cycle)+1)
	for k := range cycle {
		names = append(names, steps[cycle[(first+k)%len(cycle)]].ID)
	}
	names = append(names, names[0])
	v.err(CodeCircularDependency, names[0], "dependsOn", "circular dependency: %s", strings.Join(names, " → "))
}
