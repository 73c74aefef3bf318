package workflows

import (
	"fmt"
	"strings"

	"go.temporal.io/sdk/workflow"

	"github.com/planmode/planmode/activities"
	"github.com/planmode/planmode/plan"
	"github.com/planmode/planmode/view"
)

// clarifyPhase turns the goal into a clear one. It returns a non-empty
// answer when clarification answered the goal outright. A failing Clarify
// activity does not fail the run: the original goal is kept. Only a
// cancellation is returned as an error.
func (r *run) clarifyPhase(ctx workflow.Context) (string, error) {
	r.setPhase(ctx, plan.PhaseClarifying)
	in := activities.ClarifyInput{Task: r.task, AskQuestions: r.req.Clarify.AskQuestions, Prompts: r.prompts}
	out, err := clarify(ctx, in, "clarify goal")
	if err != nil {
		return "", softFail(ctx, r, "clarify", err)
	}
	r.noteClarify(out)
	if out.DirectAnswer != "" {
		return out.DirectAnswer, nil
	}
	if len(out.Questions) == 0 || !r.req.Clarify.AskQuestions {
		r.st.Goal = clarifiedGoal(r.st.Goal, out.Goal)
		return "", nil
	}
	answers, err := r.awaitAnswers(ctx, out.Questions)
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
	r.noteClarify(again)
	if again.DirectAnswer != "" {
		return again.DirectAnswer, nil
	}
	r.st.Goal = clarifiedGoal(r.st.Goal, again.Goal)
	return "", nil
}

// noteClarify records a Clarify activity's usage and offline flag.
func (r *run) noteClarify(out activities.ClarifyOutput) {
	r.addUsage(out.Usage)
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

// awaitAnswers publishes the questions and waits until each has an answer
// or the clarify timeout passes. It returns the answers given so far.
func (r *run) awaitAnswers(ctx workflow.Context, questions []string) (map[string]string, error) {
	r.clarify = view.Clarification{Questions: questions, Answers: map[string]string{}, Waiting: true}
	if t := r.req.Clarify.Timeout.D(); t > 0 {
		dl := workflow.Now(ctx).Add(t)
		r.clarify.Deadline = &dl
	}
	r.publish(ctx)
	r.hooks.notify(ctx, activities.EventAwaitingClarification, activities.NotifyData{
		Message: fmt.Sprintf("%d question(s) to answer", len(questions)), Clarification: view.Pending(r.view()).Clarification,
	})
	defer func() {
		r.clarify.Waiting = false
		r.publish(ctx)
	}()
	done := func() bool { return len(r.clarify.Unanswered()) == 0 }
	if r.clarify.Deadline == nil {
		if err := workflow.Await(ctx, done); err != nil {
			return nil, err
		}
		return r.clarify.Answers, nil
	}
	if _, err := workflow.AwaitWithTimeout(ctx, r.req.Clarify.Timeout.D(), done); err != nil {
		return nil, err
	}
	return r.clarify.Answers, nil
}

// takeAnswers stores answers, keyed by question text or number (the
// controls checked them), and returns the questions still open.
func (r *run) takeAnswers(ctx workflow.Context, answers map[string]string) []string {
	for _, k := range workflow.DeterministicKeys(answers) {
		r.clarify.Answers[questionFor(r.clarify, k)] = answers[k]
	}
	r.publish(ctx)
	return r.clarify.Unanswered()
}
