package workflows

import (
	"fmt"
	"strings"

	"go.temporal.io/sdk/workflow"

	"github.com/planmode/planmode/activities"
	"github.com/planmode/planmode/plan"
	"github.com/planmode/planmode/signals"
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
		return "", r.softFail(ctx, "clarify", err)
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
		return "", r.softFail(ctx, "clarify with answers", err)
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

// softFail records err as the run's last error and goes on, unless the run
// was cancelled, in which case the cancellation is returned.
func (r *run) softFail(ctx workflow.Context, what string, err error) error {
	if ctx.Err() != nil {
		return ctx.Err()
	}
	r.noteError(fmt.Sprintf("%s: %v", what, err))
	workflow.GetLogger(ctx).Warn("continuing after error", "what", what, "error", err)
	return nil
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

// answered ends a run that clarification answered outright.
func (r *run) answered(ctx workflow.Context, answer string) signals.Result {
	res := signals.Result{
		Status:  signals.StatusAnswered,
		Summary: answer,
		Usage:   r.st.Usage,
		Tokens:  r.st.Usage.TotalTokens,
		CostUSD: r.st.Usage.CostUSD,
		Offline: r.st.Offline,
	}
	// A pause asked for before execution has nothing left to hold.
	r.ctl.lift(ctx)
	r.setPhase(ctx, plan.PhaseCompleted)
	r.close(ctx, res, r.lease.release(ctx))
	return res
}
