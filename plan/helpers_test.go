package plan

import (
	"fmt"
	"time"
)

var t0 = time.Date(2025, 1, 2, 3, 4, 5, 0, time.UTC)

// llmStep returns a valid pending llm step.
func llmStep(id string, deps ...string) Step {
	return Step{ID: id, Title: "Step " + id, Action: ActionLLM, Status: StepPending,
		Config: StepConfig{LLM: &LLMConfig{Prompt: "do " + id}}, DependsOn: deps}
}

// chain returns a valid plan s1 → s2 → … → sN, each depending on the one
// before.
func chain(n int) Plan {
	p := Plan{ID: "p1", Title: "Chain", Version: 1, NextStepSeq: n + 1, CreatedAt: t0, UpdatedAt: t0, Status: PlanReady}
	for i := 1; i <= n; i++ {
		var deps []string
		if i > 1 {
			deps = []string{fmt.Sprintf("s%d", i-1)}
		}
		s := llmStep(fmt.Sprintf("s%d", i), deps...)
		s.Number = i
		p.Steps = append(p.Steps, s)
	}
	return p
}

// withStatus sets the statuses of the first steps of p in order.
func withStatus(p Plan, sts ...StepStatus) Plan {
	for i, st := range sts {
		p.Steps[i].Status = st
	}
	return p
}

func ids(p Plan) []string {
	out := make([]string, len(p.Steps))
	for i, s := range p.Steps {
		out[i] = s.ID
	}
	return out
}

func codes(is []Issue) []string {
	out := make([]string, len(is))
	for i, x := range is {
		out[i] = x.Code
	}
	return out
}

func change(reason string) Change {
	return Change{Actor: ActorUser, Reason: reason, At: t0.Add(time.Hour)}
}
