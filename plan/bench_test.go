package plan

import (
	"fmt"
	"strings"
	"testing"
)

// benchSizes are the plan lengths every plan benchmark runs at: a typical
// template-sized plan and a long one near the practical limit.
var benchSizes = []int{8, 50}

// benchPlan returns a valid chain of n steps that exercises every part of
// validation: each third step is a tool step, each fifth carries a skip
// condition on the step two back, and each seventh names the step after
// it as its fallback. The first half has finished with long outputs, so
// step contexts have real digests to cut.
func benchPlan(n int) Plan {
	p := chain(n)
	for i := range p.Steps {
		s := &p.Steps[i]
		s.Title = fmt.Sprintf("Step %d: %s", i+1, strings.Repeat("work ", 10))
		if i%3 == 2 {
			s.Action = ActionTool
			s.Config = StepConfig{Tool: &ToolConfig{Name: "read_file", Params: map[string]any{"path": "main.go"}}}
		}
		if i%5 == 4 {
			s.SkipCondition = fmt.Sprintf("%s.failed || %s.output contains \"done\"", p.Steps[i-2].ID, p.Steps[i-2].ID)
		}
		if i%7 == 6 && i+1 < n {
			s.FallbackStepID = p.Steps[i+1].ID
		}
		if i < n/2 {
			s.Status = StepCompleted
			s.Result = &StepResult{Success: true, Output: strings.Repeat(fmt.Sprintf("output of %s ", s.ID), 200)}
		}
	}
	return p
}

// requireValid fails the benchmark when its fixture is not a valid plan,
// so a broken fixture never measures the error path by accident.
func requireValid(b *testing.B, p Plan) {
	b.Helper()
	if res := Validate(p, Limits{}); !res.Valid {
		b.Fatalf("fixture plan is invalid: %v", res.Messages())
	}
}

// BenchmarkValidate measures a full validation, run after every edit and
// on every option the planner returns.
func BenchmarkValidate(b *testing.B) {
	for _, n := range benchSizes {
		b.Run(fmt.Sprintf("steps=%d", n), func(b *testing.B) {
			p := benchPlan(n)
			requireValid(b, p)
			b.ReportAllocs()
			for b.Loop() {
				if res := Validate(p, Limits{}); !res.Valid {
					b.Fatalf("invalid: %v", res.Messages())
				}
			}
		})
	}
}

// benchEdits is a batch as an operator sends it while a plan runs: a step
// inserted after the first pending one, a pending step updated, one
// appended and the last one removed.
func benchEdits(p Plan) []Edit {
	n := len(p.Steps)
	pending := p.Steps[n/2].ID
	last := p.Steps[n-1].ID
	inserted := llmStep("", pending)
	inserted.Title = "Inserted check"
	appended := llmStep("", last)
	appended.Title = "Appended summary"
	return []Edit{
		{Op: OpInsertAfter, StepID: pending, Step: &inserted},
		{Op: OpUpdate, StepID: p.Steps[n/2+1].ID, Step: &Step{Title: "Updated title", MaxRetries: 2}},
		{Op: OpAppend, Step: &appended},
		{Op: OpRemove, StepID: last},
	}
}

// BenchmarkApplyEdits measures one all-or-nothing batch of four edits,
// clone, validation and history included. Apply swaps in a new plan and
// never writes to the old one's slices, so each iteration starts from a
// shallow copy of the same fixture.
func BenchmarkApplyEdits(b *testing.B) {
	for _, n := range benchSizes {
		b.Run(fmt.Sprintf("steps=%d", n), func(b *testing.B) {
			base := benchPlan(n)
			requireValid(b, base)
			edits := benchEdits(base)
			c := change("bench")
			b.ReportAllocs()
			for b.Loop() {
				p := base
				if err := p.Apply(edits, c); err != nil {
					b.Fatalf("apply: %v", err)
				}
				if len(p.Steps) != n+1 {
					b.Fatalf("got %d steps, want %d", len(p.Steps), n+1)
				}
			}
		})
	}
}

// benchOptions returns five options of n steps each with different
// estimates, trade-offs and risks, as the planner proposes them.
func benchOptions(n int) []Option {
	cx := []Complexity{ComplexityLow, ComplexityMedium, ComplexityHigh, ComplexityVeryHigh, ComplexityMedium}
	opts := make([]Option, 5)
	for i := range opts {
		p := benchPlan(n)
		p.Estimates = Estimates{Complexity: cx[i], Confidence: 0.5 + 0.1*float64(i)}
		p.Risks = []Risk{{Description: "breaks the build", Impact: ImpactMedium, Likelihood: LikelihoodLow}}
		opts[i] = Option{ID: fmt.Sprintf("opt-%d", i+1), Title: fmt.Sprintf("Option %d", i+1), Plan: p,
			Pros: []string{"simple", "fast"}, Cons: []string{"touches many files"}}
	}
	return opts
}

// BenchmarkRank measures scoring and ranking five options, deep copies of
// their plans included.
func BenchmarkRank(b *testing.B) {
	for _, n := range benchSizes {
		b.Run(fmt.Sprintf("options=5/steps=%d", n), func(b *testing.B) {
			opts := benchOptions(n)
			b.ReportAllocs()
			for b.Loop() {
				ranked := Rank(opts)
				if len(ranked) != 5 || !ranked[0].Recommended {
					b.Fatalf("bad ranking: %d options", len(ranked))
				}
			}
		})
	}
}

// BenchmarkBuildStepContext measures the bounded context of the first
// pending step, the one the workflow runs next, whose older neighbours
// all carry long results.
func BenchmarkBuildStepContext(b *testing.B) {
	goal := strings.Repeat("Refactor the payment module and keep its API. ", 20)
	for _, n := range benchSizes {
		b.Run(fmt.Sprintf("steps=%d", n), func(b *testing.B) {
			p := benchPlan(n)
			id := p.Steps[n/2].ID
			b.ReportAllocs()
			for b.Loop() {
				ctx := BuildStepContext(goal, &p, id)
				if ctx.Position != n/2+1 {
					b.Fatalf("position %d, want %d", ctx.Position, n/2+1)
				}
			}
		})
	}
}

// BenchmarkPercentOfWork measures the progress figure the run publishes
// after every step, on plans up to MaxPlanSteps: it walks the plan once,
// so it grows linearly with the plan's length.
func BenchmarkPercentOfWork(b *testing.B) {
	for _, n := range []int{50, MaxPlanSteps} {
		b.Run(fmt.Sprintf("steps=%d", n), func(b *testing.B) {
			p := doneChain(n, n/2, 10)
			p.Steps[0].FallbackStepID = p.Steps[n-1].ID
			for b.Loop() {
				if got := p.Progress().PercentOfWork(); got <= 0 || got >= 100 {
					b.Fatalf("percent %d", got)
				}
			}
		})
	}
}
