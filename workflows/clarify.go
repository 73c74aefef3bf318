package workflows

import (
	"strings"

	"go.temporal.io/sdk/workflow"

	"github.com/planmode/planmode/activities"
	"github.com/planmode/planmode/plan"
)

// clarifyPhase turns the goal into a clear one. It returns a non-empty
// answer when clarification answered the goal outright. A failing Clarify
// activity does not fail the run: the original goal is kept. Only a
// cancellation is returned as an error.
func (r *run) clarifyPhase(ctx workflow.Context) (string, error) {
	r.setPhase(ctx, plan.PhaseClarifying)
	in := activities.ClarifyInput{Task: r.task(), AskQuestions: r.req.Clarify.AskQuestions, Prompts: r.prompts}
	out, err := clarify(ctx, in, "clarify goal")
	if err != nil {
		return "", softFail(ctx, r, "clarify", err)
	}
	r.noteClarify(ctx, out)
	if out.DirectAnswer != "" {
		return out.DirectAnswer, nil
	}
	if len(out.Questions) == 0 || !r.req.Clarify.AskQuestions {
		r.st.Goal = clarifiedGoal(r.st.Goal, out.Goal)
		return "", nil
	}
	answers, err := r.clar.await(ctx, out.Questions)
	if err != nil {
		return "", err
	}
	if len(answers) == 0 {
		return "", nil
	}
	in.Answers = answers
	in.AskQuestions = false
	again, err := clarify(ctx, in, "clarify goal with answers")
	if err != nil {
		return "", softFail(ctx, r, "clarify with answers", err)
	}
	r.noteClarify(ctx, again)
	if again.DirectAnswer != "" {
		return again.DirectAnswer, nil
	}
	r.st.Goal = clarifiedGoal(r.st.Goal, again.Goal)
	return "", nil
}

// noteClarify records a Clarify activity's usage and offline flag.
func (r *run) noteClarify(ctx workflow.Context, out activities.ClarifyOutput) {
	r.addUsage(ctx, activities.PhaseClarify, out.Usage)
	r.st.Offline = r.st.Offline || out.Offline
}

// clarifiedGoal is the clarified goal, or the goal it was when
// clarification gave none.
func clarifiedGoal(was, clarified string) string {
	if strings.TrimSpace(clarified) == "" {
		return was
	}
	return clarified
}
