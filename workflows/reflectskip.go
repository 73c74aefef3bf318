package workflows

import (
	"fmt"

	"go.temporal.io/sdk/workflow"

	"github.com/planmode/planmode/plan"
	"github.com/planmode/planmode/signals"
)

// reflectionSkipped decides continue after step s without asking the
// model when s did what it planned (plan.NeedsReflection): in the
// balanced and efficient modes, most steps of a long plan do, and their
// reflections were more than a third of its prompt tokens for an answer
// known in advance. The step's history records the decision as skipped,
// with why. It reports whether it decided.
func (e *executor) reflectionSkipped(ctx workflow.Context, s *plan.Step) bool {
	facts := plan.ReflectionFacts{EveryStep: e.ex.Mode == signals.ExecComplete}
	if len(e.st.SkipConfirmations) > 0 {
		// An open confirmation may be settled by what the reflection
		// says next.
		facts.Pending = "a skip confirmation is open"
	}
	need, why := plan.NeedsReflection(e.st.Plan, s.ID, facts)
	if need {
		return false
	}
	e.log.record(ctx, signals.EventReflectionDecided, s, fmt.Sprintf("after step %d: %s: %s", s.Number, plan.DecisionContinue, why),
		reflectionDecided{Decision: plan.DecisionContinue, Reason: why, Skipped: true})
	return true
}
