package prompts

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"text/template"

	"github.com/planmode/planmode/llm"
	"github.com/planmode/planmode/plan"
)

// Set is one set of prompt templates: the embedded ones, some of which an
// operator may replace (see Load). A nil *Set is the embedded set, so a
// zero field of a struct holding one is usable. A Set is read-only once
// loaded and safe for concurrent use.
type Set struct {
	t *template.Template
	// dir is the folder the overrides came from, "" for none.
	dir string
}

// Default returns the embedded templates.
func Default() *Set { return defaultSet }

// TemplateNames returns the names of the embedded templates, sorted: the
// names a prompt folder may use.
func TemplateNames() []string {
	entries, _ := fs.ReadDir(templateFS, "templates") // embedded: cannot fail
	var out []string
	for _, e := range entries {
		out = append(out, e.Name())
	}
	return out
}

// Load returns the embedded templates with every "<name>.tmpl" file of dir
// in place of the embedded template of the same name (see TemplateNames:
// "plan_system.tmpl", "reflect_user.tmpl", ... and "partials.tmpl", whose
// {{define}}s the others use). An empty dir returns Default. Each
// template is then rendered with a sample of the data its phase receives
// (see the *Data types), so a template that does not parse, names a field
// the data lacks or fails to render is an error naming its file, at the
// worker's start rather than in a run. A file of dir that is not a .tmpl
// is ignored; a .tmpl with another name is an error, as it would replace
// nothing.
func Load(dir string) (*Set, error) {
	if strings.TrimSpace(dir) == "" {
		return Default(), nil
	}
	files, err := filepath.Glob(filepath.Join(dir, "*.tmpl"))
	if err != nil {
		return nil, fmt.Errorf("prompt templates in %s: %w", dir, err)
	}
	if _, err := os.Stat(dir); err != nil {
		return nil, fmt.Errorf("prompt templates: %w", err)
	}
	t := embedded()
	known := TemplateNames()
	for _, f := range files {
		name := filepath.Base(f)
		if !slices.Contains(known, name) {
			return nil, fmt.Errorf("prompt template %s: no embedded template is named %s (use one of %s)", f, name,
				strings.Join(known, ", "))
		}
		text, err := os.ReadFile(f)
		if err != nil {
			return nil, fmt.Errorf("prompt template %s: %w", f, err)
		}
		if _, err := t.New(name).Parse(string(text)); err != nil {
			return nil, fmt.Errorf("prompt template %s: %w", f, err)
		}
	}
	s := &Set{t: t, dir: dir}
	if err := s.check(); err != nil {
		return nil, err
	}
	return s, nil
}

// check renders every phase with sample data; a failure names the file
// of the template that failed (or the embedded one).
func (s *Set) check() error {
	samples := []struct {
		phase string
		build func() ([]llm.Message, error)
	}{
		{llm.PhaseClarify, func() ([]llm.Message, error) { return s.Clarify(Custom{}, sampleClarify()) }},
		{llm.PhasePlan, func() ([]llm.Message, error) { return s.Plan(Custom{}, samplePlan()) }},
		{llm.PhaseExecute, func() ([]llm.Message, error) { return s.Execute(Custom{}, sampleStep(), "") }},
		{llm.PhaseAgent, func() ([]llm.Message, error) { return s.Agent(Custom{}, sampleStep(), nil) }},
		{llm.PhaseReflect, func() ([]llm.Message, error) { return s.Reflect(Custom{}, sampleReflect()) }},
		{llm.PhaseSummarize, func() ([]llm.Message, error) { return s.Summarize(Custom{}, sampleSummarize()) }},
	}
	for _, sample := range samples {
		msgs, err := sample.build()
		if err == nil && len(msgs) == 2 && strings.TrimSpace(msgs[1].Content) == "" {
			err = errors.New("the user message renders empty")
		}
		if err != nil {
			return fmt.Errorf("prompt templates of phase %s (folder %s): %w", sample.phase, s.dir, err)
		}
	}
	return nil
}

// tmpl is the parsed templates, the embedded ones for a nil Set.
func (s *Set) tmpl() *template.Template {
	if s == nil {
		return defaultSet.t
	}
	return s.t
}

// Clarify returns the messages of a clarify request.
func (s *Set) Clarify(c Custom, d ClarifyData) ([]llm.Message, error) {
	return build(s.tmpl(), llm.PhaseClarify, c, d)
}

// Plan returns the messages of a plan request; the example reply and the
// bounds are filled in.
func (s *Set) Plan(c Custom, d PlanData) ([]llm.Message, error) {
	d.Example = optionsExample
	d.MaxRetries, d.MaxRetryDelay = plan.MaxStepRetries, plan.MaxRetryDelay.String()
	return build(s.tmpl(), llm.PhasePlan, c, d)
}

// Execute returns the messages of an llm step, whose context shows what
// a step at work needs (workView); stepSystem, the step's own system
// prompt, comes last in the system message.
func (s *Set) Execute(c Custom, d StepData, stepSystem string) ([]llm.Message, error) {
	d.Context = workView(d.Context)
	return build(s.tmpl(), llm.PhaseExecute, c, d, stepSystem)
}

// Agent returns the messages of an agent turn: the step's prompt, its
// context as a step at work sees it (workView), then the step's own
// transcript, whose tool results are cut to maxToolMessageLen bytes each.
func (s *Set) Agent(c Custom, d StepData, transcript []llm.Message) ([]llm.Message, error) {
	d.Context = workView(d.Context)
	msgs, err := build(s.tmpl(), llm.PhaseAgent, c, d)
	if err != nil {
		return nil, err
	}
	for _, m := range transcript {
		if m.Role == llm.RoleTool {
			m.Content = plan.TruncateBytes(m.Content, maxToolMessageLen)
		}
		msgs = append(msgs, m)
	}
	return msgs, nil
}

// Reflect returns the messages of a reflect request.
func (s *Set) Reflect(c Custom, d ReflectData) ([]llm.Message, error) {
	return build(s.tmpl(), llm.PhaseReflect, c, d)
}

// Summarize returns the messages of a summary request.
func (s *Set) Summarize(c Custom, d SummarizeData) ([]llm.Message, error) {
	return build(s.tmpl(), llm.PhaseSummarize, c, d)
}
