package view

import (
	"fmt"
	"time"

	"github.com/planmode/planmode/plan"
)

// llmSteps builds n chained llm steps s1 → s2 → … sn, pending.
func llmSteps(n int) []plan.Step {
	steps := make([]plan.Step, n)
	for i := range steps {
		steps[i] = plan.Step{ID: fmt.Sprintf("s%d", i+1), Number: i + 1, Title: fmt.Sprintf("Step s%d", i+1),
			Action: plan.ActionLLM, Config: plan.StepConfig{LLM: &plan.LLMConfig{Prompt: "do it"}},
			Status: plan.StepPending, Estimated: plan.Duration(time.Minute)}
		if i > 0 {
			steps[i].DependsOn = []string{fmt.Sprintf("s%d", i)}
		}
	}
	return steps
}

// option builds an option without ids.
func option(title string, c plan.Complexity, confidence float64, steps ...plan.Step) plan.Option {
	return plan.Option{Title: title, Plan: plan.Plan{Title: title, Steps: steps,
		Estimates: plan.Estimates{Complexity: c, Confidence: confidence}, Status: plan.PlanDraft, Version: 1}}
}
