package plan

import (
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"testing"
	"time"
)

// The fuzz targets below run their seeds (testdata/fuzz and f.Add) as
// ordinary tests; `go test -fuzz=FuzzX ./plan` explores further.

// FuzzDuration: decoding never panics, a bare number other than 0 is
// refused, and what is accepted encodes and decodes back to itself.
func FuzzDuration(f *testing.F) {
	for _, s := range []string{`"90s"`, `"1h30m"`, `0`, `90`, `""`, `null`, `"-5m"`, `1e300`, `"9999999999h"`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		var d Duration
		if err := json.Unmarshal([]byte(in), &d); err != nil {
			return
		}
		var n float64
		if json.Unmarshal([]byte(in), &n) == nil && n != 0 {
			t.Fatalf("bare number %s accepted as %s", in, d)
		}
		b, err := json.Marshal(d)
		if err != nil {
			t.Fatalf("marshal %s: %v", d, err)
		}
		var back Duration
		if err := json.Unmarshal(b, &back); err != nil || back != d {
			t.Fatalf("round trip of %s: got %s, %v", b, back, err)
		}
	})
}

// FuzzConditionParse: parsing never panics, an accepted condition is
// within its bounds, names its steps and evaluates against a plan that
// has them.
func FuzzConditionParse(f *testing.F) {
	for _, s := range []string{
		"always", `s1.completed && !s2.failed`, `(s1.done or s2.skipped) and not s3.cancelled`,
		`s1.output contains "ok \"quoted\""`, "s1.filesChanged >= 3", "((((s1.done))))", "!!!!s1.done",
		"s1.", `s1.output contains "unterminated`, "s1.filesChanged > 99999999999999999999", "&&", "",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, expr string) {
		refs, err := ConditionSteps(expr)
		if err != nil {
			var ce *ConditionError
			if !errors.As(err, &ce) {
				t.Fatalf("error is not a *ConditionError: %v", err)
			}
			return
		}
		if len(expr) > MaxConditionBytes {
			t.Fatalf("condition of %d bytes accepted", len(expr))
		}
		p := Plan{}
		ids := map[string]bool{}
		for _, id := range refs {
			p.Steps = append(p.Steps, Step{ID: id, Status: StepCompleted, Result: &StepResult{Output: "out"}})
			ids[id] = true
		}
		if err := CheckCondition(expr, ids); err != nil {
			t.Fatalf("check after parse: %v", err)
		}
		if _, err := EvalCondition(expr, &p); err != nil {
			t.Fatalf("eval after parse: %v", err)
		}
	})
}

// FuzzValidate: validating any plan never panics, gives the same answer
// twice, and a plan it accepts is within the bounds of limits.go.
func FuzzValidate(f *testing.F) {
	for _, p := range []Plan{chain(3), withStatus(chain(2), StepCompleted)} {
		b, _ := json.Marshal(p)
		f.Add(string(b), false)
	}
	f.Add(`{"steps":[{"id":"a","action":"tool","config":{"tool":{"name":"rm_rf"}}}]}`, true)
	f.Add(`{"steps":[{"id":"a","action":"llm","config":{"llm":{"prompt":"p"}},"maxRetries":1000000}]}`, false)
	f.Add(`{"steps":[{"id":"a","action":"agent","config":{"agent":{"prompt":"p","maxIterations":51}}}]}`, false)
	f.Fuzz(func(t *testing.T, planJSON string, tools bool) {
		var p Plan
		if json.Unmarshal([]byte(planJSON), &p) != nil {
			return
		}
		lim := Limits{}
		if tools {
			lim = Limits{Tools: BuiltinTools(), MaxSteps: 20, MaxIterations: 16}
		}
		res := Validate(p, lim)
		if again := Validate(p, lim); !reflect.DeepEqual(again, res) {
			t.Fatalf("validation is not deterministic: %v then %v", res, again)
		}
		if res.Valid {
			if err := withinBounds(p, lim); err != nil {
				t.Fatalf("valid plan beyond its bounds: %v", err)
			}
		}
	})
}

// FuzzApplyEdits applies random wire edits to a valid plan with done,
// running and pending steps: Apply never panics, a refused batch leaves
// the plan as it was, and an accepted one leaves it valid, within its
// bounds, renumbered, one version up, its locked steps still there.
func FuzzApplyEdits(f *testing.F) {
	seeds := [][]Edit{
		{{Op: OpAppend, Step: &Step{Title: "t", Action: ActionLLM, Config: StepConfig{LLM: &LLMConfig{Prompt: "p"}}}}},
		{{Op: OpUpdate, StepID: "s4", Step: &Step{MaxRetries: 1000000}}},
		{{Op: OpUpdate, StepID: "s4", Step: &Step{RetryDelay: Duration(time.Hour)}}},
		{{Op: OpRemove, StepID: "s3"}, {Op: OpRemoveAfter, StepID: "s1"}},
		{{Op: OpInsertBefore, StepID: "s1", Step: &Step{ID: "x", Title: "x", Action: ActionTool,
			Config: StepConfig{Tool: &ToolConfig{Name: ToolReadFile, Params: map[string]any{"path": "a"}}}}}},
		{{Op: OpInsertAfter, StepID: "s2", Step: &Step{ID: "y", Title: "y", Action: ActionTool,
			Config: StepConfig{Tool: &ToolConfig{Name: "no_such_tool"}}}}},
		{{Op: OpUpdate, StepID: "s5", Step: &Step{SkipCondition: "s1.done && s9.failed"}}},
	}
	for _, s := range seeds {
		b, _ := json.Marshal(s)
		f.Add(string(b), true)
	}
	f.Fuzz(func(t *testing.T, editsJSON string, tools bool) {
		var edits []Edit
		if json.Unmarshal([]byte(editsJSON), &edits) != nil {
			return
		}
		lim := Limits{}
		if tools {
			lim = Limits{Tools: BuiltinTools(), MaxSteps: 12, MaxIterations: 16}
		}
		p := withStatus(chain(5), StepCompleted, StepRunning)
		if res := Validate(p, lim); !res.Valid {
			t.Fatalf("start plan invalid: %v", res.Messages())
		}
		before := p.Clone()
		err := p.Apply(edits, Change{Actor: ActorUser, Reason: "fuzz", At: t0, Within: lim})
		if err != nil {
			var ee *EditError
			if !errors.As(err, &ee) {
				t.Fatalf("refusal is not an *EditError: %v", err)
			}
			if !reflect.DeepEqual(before, p) {
				t.Fatalf("a refused edit changed the plan")
			}
			return
		}
		if res := Validate(p, lim); !res.Valid {
			t.Fatalf("accepted edits left the plan invalid: %v", res.Messages())
		}
		if err := withinBounds(p, lim); err != nil {
			t.Fatalf("accepted edits left the plan beyond its bounds: %v", err)
		}
		if p.Version != before.Version+1 {
			t.Fatalf("version %d after %d", p.Version, before.Version)
		}
		for i, s := range p.Steps {
			if s.Number != i+1 {
				t.Fatalf("step %s numbered %d at %d", s.ID, s.Number, i+1)
			}
		}
		for _, s := range before.Steps[:2] {
			if q := p.StepByID(s.ID); q == nil || q.Status != s.Status {
				t.Fatalf("locked step %s changed or went", s.ID)
			}
		}
	})
}

// withinBounds checks the bounds of limits.go on p independently of
// Validate.
func withinBounds(p Plan, lim Limits) error {
	if len(p.Steps) > MaxPlanSteps || (lim.MaxSteps > 0 && len(p.Steps) > lim.MaxSteps) {
		return fmt.Errorf("%d steps", len(p.Steps))
	}
	for _, s := range p.Steps {
		switch {
		case s.MaxRetries < 0 || s.MaxRetries > MaxStepRetries:
			return fmt.Errorf("maxRetries %d", s.MaxRetries)
		case s.RetryDelay < 0 || s.RetryDelay > MaxRetryDelay:
			return fmt.Errorf("retryDelay %s", s.RetryDelay)
		case s.Estimated < 0 || s.Estimated > MaxStepEstimate:
			return fmt.Errorf("estimated %s", s.Estimated)
		case len(s.ID) > MaxIDBytes || len(s.Title) > MaxTitleBytes || len(s.Description) > MaxStepTextBytes:
			return fmt.Errorf("step %q texts", s.ID)
		case len(s.SkipCondition) > MaxConditionBytes:
			return fmt.Errorf("skipCondition of %d bytes", len(s.SkipCondition))
		}
		if c := s.Config.Agent; c != nil && (c.MaxIterations < 0 || c.MaxIterations > MaxAgentIterations ||
			(lim.MaxIterations > 0 && c.MaxIterations > lim.MaxIterations) || len(c.Prompt) > MaxStepTextBytes) {
			return fmt.Errorf("agent config of %q", s.ID)
		}
		if c := s.Config.LLM; c != nil && (len(c.Prompt) > MaxStepTextBytes || c.MaxTokens < 0 || c.MaxTokens > MaxLLMTokens) {
			return fmt.Errorf("llm config of %q", s.ID)
		}
		if c := s.Config.Tool; c != nil {
			b, err := json.Marshal(c.Params)
			if err != nil || len(b) > MaxToolParamsBytes {
				return fmt.Errorf("tool params of %q", s.ID)
			}
		}
	}
	return nil
}
