package activities

import (
	"context"
	"fmt"

	"github.com/planmode/planmode/llm/phases"
	"github.com/planmode/planmode/outputs"
	"github.com/planmode/planmode/plan"
)

// readFinish reads the finish_step call among calls, if any
// (phases.FinishOf): its answer, or why it cannot end the step. An answer
// longer than the plan keeps is kept whole in the output store, as a
// plain final answer is.
func (m *Model) readFinish(ctx context.Context, in AgentTurnInput, calls []ToolCall) *StepFinish {
	answer, ok, err := phases.FinishOf(calls)
	switch {
	case !ok:
		return nil
	case err != nil:
		return &StepFinish{Error: err.Error()}
	}
	f := &StepFinish{Answer: answer}
	if len(answer) > plan.KeptOutputBytes {
		step := in.Context.Step
		f.OutputRef = m.tools().keepOutput(ctx, outputNameFor(ctx, in.PlanID, step.ID, outputs.FromModel,
			fmt.Sprint(in.Iteration)), f.Answer)
	}
	return f
}
