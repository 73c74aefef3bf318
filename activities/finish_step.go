package activities

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/planmode/planmode/llm"
	"github.com/planmode/planmode/outputs"
	"github.com/planmode/planmode/plan"
	"github.com/planmode/planmode/prompts"
	"github.com/planmode/planmode/tools"
)

// withFinishStep offers finish_step beside specs on every turn that offers
// tools (not the final one, which asks for a plain answer), whatever tools
// the step names: it is how any agent step ends in the turn of its last
// tool calls instead of a turn of its own. specs itself is left alone.
func withFinishStep(data *prompts.StepData, specs []llm.ToolSpec) []llm.ToolSpec {
	if data.Final {
		return specs
	}
	for _, s := range specs {
		if s.Name == FinishStep {
			return specs
		}
	}
	s := tools.FinishStepSpec()
	data.Tools = append(data.Tools, s.Name)
	return append(specs[:len(specs):len(specs)], llm.ToolSpec{Name: s.Name, Description: s.Description, Parameters: s.Parameters})
}

// readFinish reads the finish_step call among calls, if any: its answer,
// decoded strictly and bounded (tools.DecodeFinishStep), or why it cannot
// end the step. An answer longer than the plan keeps is kept whole in the
// output store, as a plain final answer is. Two calls in one turn are
// refused: which answer would be the step's is the model's to say.
func (m *Model) readFinish(ctx context.Context, in AgentTurnInput, calls []ToolCall) *StepFinish {
	var f *StepFinish
	n := 0
	for _, c := range calls {
		if c.Name != FinishStep {
			continue
		}
		n++
		if f != nil {
			continue
		}
		answer, err := tools.DecodeFinishStep(json.RawMessage(c.Arguments))
		f = &StepFinish{Answer: answer}
		if err != nil {
			f.Error = err.Error()
		}
	}
	if n > 1 {
		return &StepFinish{Error: fmt.Sprintf("finish_step was called %d times in one turn: call it once, with the step's whole answer", n)}
	}
	if f != nil && f.Error == "" && len(f.Answer) > plan.KeptOutputBytes {
		step := in.Context.Step
		f.OutputRef = m.tools().keepOutput(ctx, outputNameFor(ctx, in.PlanID, step.ID, outputs.FromModel,
			fmt.Sprint(in.Iteration)), f.Answer)
	}
	return f
}
