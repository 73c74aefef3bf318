package plan

import (
	"sort"
	"strconv"
	"strings"
	"time"
	"unicode"
)

// Template is a ready-made plan for a common kind of task: a plan made at
// once, without an LLM call. Prompts and tool parameter strings may hold
// "{request}", which FromTemplate replaces by the goal.
type Template struct {
	Name        string   `json:"name"`
	Description string   `json:"description"`
	Keywords    []string `json:"keywords"`
	Steps       []Step   `json:"steps"`
}

// RequestPlaceholder is replaced by the task's goal in template prompts.
const RequestPlaceholder = "{request}"

// templateConfidence is the confidence of a plan made from a template.
const templateConfidence = 0.7

// TemplateAuto, given as a template name, lets the goal's task type
// choose the template (DetectTaskType), or none when no type fits.
const TemplateAuto = "auto"

// TemplateNames returns the names of the built-in templates, in their
// order.
func TemplateNames() []string {
	var out []string
	for _, t := range builtinTemplates() {
		out = append(out, t.Name)
	}
	return out
}

// Templates returns the built-in templates: refactoring, bug_fix, feature,
// documentation and analysis. Each call returns fresh copies.
func Templates() []Template { return builtinTemplates() }

// TemplateByName returns the built-in template with the name, and false
// when there is none.
func TemplateByName(name string) (Template, bool) {
	for _, t := range builtinTemplates() {
		if t.Name == name {
			return t, true
		}
	}
	return Template{}, false
}

// DetectTaskType returns the name of the template that fits goal, and
// false when none does. A keyword matches the start of a word of the goal,
// ignoring case ("analy" matches "analyze", "fix" matches "fixing" but not
// "prefix"); templates are tried in a fixed priority: refactoring, bug_fix,
// documentation, analysis, feature.
func DetectTaskType(goal string) (string, bool) {
	words := strings.FieldsFunc(strings.ToLower(goal), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r)
	})
	all := builtinTemplates()
	for _, name := range detectOrder {
		for _, t := range all {
			if t.Name == name && matchesAny(words, t.Keywords) {
				return name, true
			}
		}
	}
	return "", false
}

func matchesAny(words, keywords []string) bool {
	for _, k := range keywords {
		for _, w := range words {
			if strings.HasPrefix(w, k) {
				return true
			}
		}
	}
	return false
}

// FromTemplate fills t for task: steps "s1".."sN" in order, pending, with
// "{request}" replaced by the goal in prompts and tool parameters (prompts
// also get the task's requirements and constraints). A template step names
// its dependencies, fallback and skip condition by those position ids; a
// step whose DependsOn is nil depends on the step before it that is not a
// fallback (fallbacks run only in another's place, so nothing waits on
// them), and an empty, non-nil DependsOn makes it independent. The plan is a draft at version 1 created at now, its
// duration the sum of the step estimates, its complexity set by the step
// count and its confidence 0.7.
func FromTemplate(t Template, task Task, planID string, now time.Time) Plan {
	p := Plan{
		ID: planID, TaskID: task.ID, Title: templateTitle(t.Name) + ": " + Truncate(oneLine(task.Goal), 80),
		Description: t.Description, CreatedAt: now, UpdatedAt: now, Version: 1, Status: PlanDraft,
		Template: t.Name, NextStepSeq: len(t.Steps) + 1,
		Risks: []Risk{{Description: "A template plan is generic and may miss what is specific to this task",
			Impact: ImpactMedium, Likelihood: LikelihoodLow, Mitigation: "Reflection after each step can change the plan"}},
	}
	prompt := strings.NewReplacer(RequestPlaceholder, task.Goal+taskDetails(task))
	plain := strings.NewReplacer(RequestPlaceholder, task.Goal)
	tools := map[string]bool{}
	fallbacks := map[string]bool{}
	for _, s := range t.Steps {
		fallbacks[s.FallbackStepID] = s.FallbackStepID != ""
	}
	var total Duration
	prev := ""
	for i, s := range t.Steps {
		s = s.Clone()
		s.ID = stepID(i + 1)
		s.Number = i + 1
		switch {
		case fallbacks[s.ID]:
		case s.DependsOn == nil && prev != "":
			s.DependsOn = []string{prev}
		}
		if !fallbacks[s.ID] {
			prev = s.ID
		}
		s.Status, s.Result, s.StartedAt, s.EndedAt, s.Note = StepPending, nil, nil, nil, ""
		fillConfig(&s.Config, prompt, plain)
		for _, tool := range s.RequiredTools {
			tools[tool] = true
		}
		total += s.Estimated
		p.Steps = append(p.Steps, s)
	}
	for tool := range tools {
		p.Resources = append(p.Resources, tool)
	}
	sort.Strings(p.Resources)
	p.Estimates = Estimates{Duration: total, Complexity: complexityForSteps(len(p.Steps)), Confidence: templateConfidence}
	return p
}

func stepID(n int) string { return "s" + strconv.Itoa(n) }

// complexityForSteps rates a plan by its length.
func complexityForSteps(n int) Complexity {
	switch {
	case n <= 3:
		return ComplexityLow
	case n <= 5:
		return ComplexityMedium
	case n <= 8:
		return ComplexityHigh
	}
	return ComplexityVeryHigh
}

// templateTitle turns "bug_fix" into "Bug fix".
func templateTitle(name string) string {
	s := strings.ReplaceAll(name, "_", " ")
	if s == "" {
		return "Plan"
	}
	return strings.ToUpper(s[:1]) + s[1:]
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

// taskDetails renders requirements and constraints for prompts.
func taskDetails(t Task) string {
	var b strings.Builder
	for _, sec := range []struct {
		name  string
		items []string
	}{{"Requirements", t.Requirements}, {"Constraints", t.Constraints}} {
		if len(sec.items) == 0 {
			continue
		}
		b.WriteString("\n" + sec.name + ":")
		for _, it := range sec.items {
			b.WriteString("\n- " + it)
		}
	}
	return b.String()
}

// fillConfig substitutes the request in prompts (with details) and in tool
// parameters (goal only).
func fillConfig(c *StepConfig, prompt, plain *strings.Replacer) {
	if c.LLM != nil {
		c.LLM.Prompt = prompt.Replace(c.LLM.Prompt)
		c.LLM.SystemPrompt = plain.Replace(c.LLM.SystemPrompt)
	}
	if c.Agent != nil {
		c.Agent.Prompt = prompt.Replace(c.Agent.Prompt)
	}
	if c.Tool != nil {
		for k, v := range c.Tool.Params {
			c.Tool.Params[k] = replaceValue(v, plain)
		}
	}
}

func replaceValue(v any, r *strings.Replacer) any {
	switch x := v.(type) {
	case string:
		return r.Replace(x)
	case []string:
		out := make([]string, len(x))
		for i := range x {
			out[i] = r.Replace(x[i])
		}
		return out
	case []any:
		for i := range x {
			x[i] = replaceValue(x[i], r)
		}
	case map[string]any:
		for k := range x {
			x[k] = replaceValue(x[k], r)
		}
	}
	return v
}
