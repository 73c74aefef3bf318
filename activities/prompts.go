package activities

import (
	"bytes"
	"embed"
	"fmt"
	"regexp"
	"strings"
	"text/template"

	"github.com/planmode/planmode/llm"
	"github.com/planmode/planmode/plan"
)

// promptFS holds one system and one user template per LLM phase
// (<phase>_system.tmpl, <phase>_user.tmpl) and shared partials.
//
//go:embed prompts/*.tmpl
var promptFS embed.FS

// promptTemplates are the parsed prompt templates.
var promptTemplates = template.Must(template.New("prompts").Funcs(template.FuncMap{
	"clip": func(n int, s string) string { return plan.TruncateBytes(s, n) },
	"join": strings.Join,
	"add":  func(a, b int) int { return a + b },
	// historyTail bounds the earlier conversation a prompt shows.
	"historyTail": historyTail,
}).ParseFS(promptFS, "prompts/*.tmpl"))

// phasePromptKeys maps LLM phases to the keys of Prompts.Phases, which are
// the run's phase names.
var phasePromptKeys = map[string]plan.Phase{
	PhaseClarify:   plan.PhaseClarifying,
	PhasePlan:      plan.PhasePlanning,
	PhaseExecute:   plan.PhaseExecuting,
	PhaseAgent:     plan.PhaseExecuting,
	PhaseReflect:   plan.PhaseReflecting,
	PhaseSummarize: plan.PhaseSummarizing,
}

// buildMessages renders a phase's system and user templates with data.
// The system message starts with the phase line, then the template, then
// the caller's system prompt, the phase's prompt and any extra prompts
// (a step's own system prompt), each separated by a blank line.
func buildMessages(phase string, p Prompts, data any, extra ...string) ([]Message, error) {
	sys, err := renderPrompt(phase+"_system.tmpl", data)
	if err != nil {
		return nil, err
	}
	user, err := renderPrompt(phase+"_user.tmpl", data)
	if err != nil {
		return nil, err
	}
	parts := []string{PhaseLine + phase + "\n" + sys, p.System, p.Phases[string(phasePromptKeys[phase])]}
	parts = append(parts, extra...)
	var system []string
	for _, s := range parts {
		if s = strings.TrimSpace(s); s != "" {
			system = append(system, s)
		}
	}
	return []Message{
		{Role: llm.RoleSystem, Content: strings.Join(system, "\n\n")},
		{Role: llm.RoleUser, Content: user},
	}, nil
}

// blankRuns matches runs of blank lines, which conditional template
// sections leave behind.
var blankRuns = regexp.MustCompile(`\n[ \t]*(\n[ \t]*)+\n`)

// renderPrompt executes a template and tidies its whitespace: trailing
// spaces go, runs of blank lines become one.
func renderPrompt(name string, data any) (string, error) {
	var b bytes.Buffer
	if err := promptTemplates.ExecuteTemplate(&b, name, data); err != nil {
		return "", fmt.Errorf("render prompt %s: %w", name, err)
	}
	lines := strings.Split(b.String(), "\n")
	for i, l := range lines {
		lines[i] = strings.TrimRight(l, " \t")
	}
	s := strings.Join(lines, "\n")
	s = blankRuns.ReplaceAllString(s, "\n\n")
	return strings.TrimSpace(s), nil
}

// optionsExample is the exact JSON shape of OptionsReply shown to the
// model in the plan prompt. A test decodes it strictly into OptionsReply
// so that it cannot drift from the type.
const optionsExample = `{"options":[{"title":"Short name of the approach",` +
	`"description":"What this option does and how",` +
	`"pros":["why to choose it"],"cons":["what it costs"],` +
	`"risks":[{"description":"what may go wrong","impact":"medium","likelihood":"low","mitigation":"how to avoid it"}],` +
	`"estimates":{"durationMinutes":30,"complexity":"medium","confidence":0.8},` +
	`"steps":[` +
	`{"id":"s1","title":"Find the relevant code","description":"Locate where login is handled",` +
	`"kind":"code_analysis","action":"tool","config":{"tool":{"name":"search_code","params":{"pattern":"func Login"}}},` +
	`"estimatedSeconds":30},` +
	`{"id":"s2","title":"Implement the change","description":"Edit the files found",` +
	`"kind":"code_generation","action":"agent",` +
	`"config":{"agent":{"prompt":"Add token checks to the login handler","tools":["read_file","write_file"]}},` +
	`"dependsOn":["s1"],"maxRetries":1,"estimatedSeconds":300},` +
	`{"id":"s3","title":"Review the change","description":"Check the result against the goal",` +
	`"kind":"validation","action":"llm","config":{"llm":{"prompt":"Review the change for mistakes"}},` +
	`"dependsOn":["s2"],"skippable":true,"estimatedSeconds":60}]}]}`
