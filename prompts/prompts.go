package prompts

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

// PhaseLine starts the first line of every request's system message,
// followed by the phase. It is llm.PhaseLine, defined below both the
// prompts, which write it, and the offline model, which reads it.
const PhaseLine = llm.PhaseLine

// Custom are the caller's own system prompts, added after the template's:
// one for every phase and extra ones per phase name of the run (clarifying,
// planning, executing, reflecting, summarizing). A run carries them in
// workflow history, so their JSON shape is part of the wire contract.
type Custom struct {
	System string            `json:"system,omitempty"`
	Phases map[string]string `json:"phases,omitempty"`
}

// templateFS holds one system and one user template per LLM phase
// (<phase>_system.tmpl, <phase>_user.tmpl) and shared partials.
//
//go:embed templates/*.tmpl
var templateFS embed.FS

// funcs are the functions every template, embedded or an operator's, may
// call.
var funcs = template.FuncMap{
	"clip": func(n int, s string) string { return plan.TruncateBytes(s, n) },
	"join": strings.Join,
	"add":  func(a, b int) int { return a + b },
	// historyTail bounds the earlier conversation a prompt shows.
	"historyTail": historyTail,
	// changes lists a step's file changes, bounded.
	"changes": changes,
}

// embedded parses the embedded templates afresh, so that a Set loaded
// from a folder never changes the default one.
func embedded() *template.Template {
	return template.Must(template.New("prompts").Funcs(funcs).ParseFS(templateFS, "templates/*.tmpl"))
}

// defaultSet holds the embedded templates.
var defaultSet = &Set{t: embedded()}

// phaseKeys maps LLM phases to the keys of Custom.Phases, which are the
// run's phase names.
var phaseKeys = map[string]plan.Phase{
	llm.PhaseClarify:   plan.PhaseClarifying,
	llm.PhasePlan:      plan.PhasePlanning,
	llm.PhaseExecute:   plan.PhaseExecuting,
	llm.PhaseAgent:     plan.PhaseExecuting,
	llm.PhaseReflect:   plan.PhaseReflecting,
	llm.PhaseSummarize: plan.PhaseSummarizing,
}

// Each builder below renders its phase's system and user messages with
// the embedded templates (see Set for an operator's own); an error is a
// template that failed to render, a fault of the worker.

// Clarify returns the messages of a clarify request.
func Clarify(c Custom, d ClarifyData) ([]llm.Message, error) { return defaultSet.Clarify(c, d) }

// Plan returns the messages of a plan request; the example reply and the
// bounds are filled in.
func Plan(c Custom, d PlanData) ([]llm.Message, error) { return defaultSet.Plan(c, d) }

// Execute returns the messages of an llm step; stepSystem, the step's own
// system prompt, comes last in the system message.
func Execute(c Custom, d StepData, stepSystem string) ([]llm.Message, error) {
	return defaultSet.Execute(c, d, stepSystem)
}

// Agent returns the messages of an agent turn: the step's prompt, then the
// step's own transcript, whose tool results are cut to maxToolMessageLen
// bytes each.
func Agent(c Custom, d StepData, transcript []llm.Message) ([]llm.Message, error) {
	return defaultSet.Agent(c, d, transcript)
}

// Reflect returns the messages of a reflect request.
func Reflect(c Custom, d ReflectData) ([]llm.Message, error) { return defaultSet.Reflect(c, d) }

// Summarize returns the messages of a summary request.
func Summarize(c Custom, d SummarizeData) ([]llm.Message, error) { return defaultSet.Summarize(c, d) }

// build renders a phase's system and user templates of t with data. The
// system message starts with the phase line, then the template, then the
// caller's system prompt, the phase's prompt and any extra prompts (a
// step's own system prompt), each separated by a blank line.
func build(t *template.Template, phase string, c Custom, data any, extra ...string) ([]llm.Message, error) {
	sys, err := render(t, phase+"_system.tmpl", data)
	if err != nil {
		return nil, err
	}
	user, err := render(t, phase+"_user.tmpl", data)
	if err != nil {
		return nil, err
	}
	parts := []string{PhaseLine + phase + "\n" + sys, c.System, c.Phases[string(phaseKeys[phase])]}
	parts = append(parts, extra...)
	var system []string
	for _, s := range parts {
		if s = strings.TrimSpace(s); s != "" {
			system = append(system, s)
		}
	}
	return []llm.Message{
		{Role: llm.RoleSystem, Content: strings.Join(system, "\n\n")},
		{Role: llm.RoleUser, Content: user},
	}, nil
}

// blankRuns matches runs of blank lines, which conditional template
// sections leave behind.
var blankRuns = regexp.MustCompile(`\n[ \t]*(\n[ \t]*)+\n`)

// render executes a template and tidies its whitespace: trailing spaces
// go, runs of blank lines become one.
func render(t *template.Template, name string, data any) (string, error) {
	var b bytes.Buffer
	if err := t.ExecuteTemplate(&b, name, data); err != nil {
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

// inspectNote tells the model, in the system message, that it may look
// before it answers; %s names the tools, %d is the number of rounds.
const inspectNote = "You may first inspect the workspace with the read-only tools offered (%s), " +
	"at most %d rounds of calls; then reply with the JSON object."

// InspectDone asks for the answer once the rounds of workspace inspection
// are used up.
const InspectDone = "You have used every round of tool calls. Reply now with the JSON object only."

// WithInspectNote returns a copy of msgs whose system message ends with a
// note that the model may first inspect the workspace with tools, for at
// most rounds rounds; without a system message the note leads.
func WithInspectNote(msgs []llm.Message, tools []string, rounds int) []llm.Message {
	note := fmt.Sprintf(inspectNote, strings.Join(tools, ", "), rounds)
	out := append([]llm.Message(nil), msgs...)
	for i, m := range out {
		if m.Role == llm.RoleSystem {
			out[i].Content = strings.TrimSpace(m.Content + "\n\n" + note)
			return out
		}
	}
	return append([]llm.Message{{Role: llm.RoleSystem, Content: note}}, out...)
}

// optionsExample is the exact JSON shape of reply.Options shown to the
// model in the plan prompt. A test decodes it strictly into reply.Options
// so that it cannot drift from the type.
const optionsExample = `{"options":[{"title":"Short name of the approach",` +
	`"description":"What this option does and how",` +
	`"pros":["why to choose it"],"cons":["what it costs"],` +
	`"risks":[{"description":"what may go wrong","impact":"medium","likelihood":"low","mitigation":"how to avoid it"}],` +
	`"estimates":{"durationMinutes":30,"complexity":"medium","confidence":0.8},` +
	`"steps":[` +
	`{"id":"s1","title":"Find the relevant code","description":"Locate where login is handled",` +
	`"kind":"code_analysis","action":"tool","config":{"tool":{"name":"search_code","params":{"pattern":"func Login"}}},` +
	`"dependsOn":[],"estimatedSeconds":30},` +
	`{"id":"s2","title":"Implement the change","description":"Edit the files found",` +
	`"kind":"code_generation","action":"agent",` +
	`"config":{"agent":{"prompt":"Add token checks to the login handler","tools":["read_file","write_file"]}},` +
	`"dependsOn":["s1"],"maxRetries":1,"retryDelay":"10s","fallbackStepId":"s4","estimatedSeconds":300},` +
	`{"id":"s3","title":"Review the change","description":"Check the result against the goal",` +
	`"kind":"validation","action":"llm","config":{"llm":{"prompt":"Review the change for mistakes"}},` +
	`"dependsOn":["s2"],"skipCondition":"s2.filesChanged == 0","skippable":true,"estimatedSeconds":60},` +
	`{"id":"s4","title":"Explain what blocks the change","description":"Runs only if s2 fails",` +
	`"kind":"code_analysis","action":"llm","config":{"llm":{"prompt":"Explain why the change could not be made"}},` +
	`"dependsOn":["s1"],"estimatedSeconds":60}]}]}`
