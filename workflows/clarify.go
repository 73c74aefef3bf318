package workflows

import (
	"fmt"
	"strconv"
	"strings"

	"go.temporal.io/sdk/workflow"

	"github.com/planmode/planmode/activities"
	"github.com/planmode/planmode/plan"
	"github.com/planmode/planmode/signals"
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
		r.setGoal(out.Goal)
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
	r.setGoal(again.Goal)
	return "", nil
}

// noteClarify records a Clarify activity's usage and offline flag.
func (r *run) noteClarify(out activities.ClarifyOutput) {
	r.addUsage(out.Usage)
	r.st.Offline = r.st.Offline || out.Offline
}

// setGoal keeps a clarified goal unless it is empty.
func (r *run) setGoal(goal string) {
	if strings.TrimSpace(goal) != "" {
		r.st.Goal = goal
	}
}

// softFail records err as the run's last error and goes on, unless the run
// was cancelled, in which case the cancellation is returned.
func (r *run) softFail(ctx workflow.Context, what string, err error) error {
	if ctx.Err() != nil {
		return ctx.Err()
	}
	r.st.LastError = fmt.Sprintf("%s: %v", what, err)
	workflow.GetLogger(ctx).Warn("continuing after error", "what", what, "error", err)
	return nil
}

// awaitAnswers publishes the questions and waits until each has an answer
// or the clarify timeout passes. It returns the answers given so far.
func (r *run) awaitAnswers(ctx workflow.Context, questions []string) (map[string]string, error) {
	r.clarify = clarifyState{questions: questions, answers: map[string]string{}, waiting: true}
	if t := r.req.Clarify.Timeout.D(); t > 0 {
		dl := workflow.Now(ctx).Add(t)
		r.clarify.deadline = &dl
	}
	r.publish(ctx)
	r.notify(ctx, activities.EventAwaitingClarification, activities.NotifyData{
		Message: fmt.Sprintf("%d question(s) to answer", len(questions)), Clarification: r.pending().Clarification,
	})
	defer func() {
		r.clarify.waiting = false
		r.publish(ctx)
	}()
	done := func() bool { return len(r.unanswered()) == 0 }
	if r.clarify.deadline == nil {
		if err := workflow.Await(ctx, done); err != nil {
			return nil, err
		}
		return r.clarify.answers, nil
	}
	if _, err := workflow.AwaitWithTimeout(ctx, r.req.Clarify.Timeout.D(), done); err != nil {
		return nil, err
	}
	return r.clarify.answers, nil
}

// unanswered lists the questions without an answer, in asked order.
func (r *run) unanswered() []string {
	var out []string
	for _, q := range r.clarify.questions {
		if _, ok := r.clarify.answers[q]; !ok {
			out = append(out, q)
		}
	}
	return out
}

// questionFor maps an answer's key to its question: the question's text
// or its 1-based number. It returns "" for a key that matches neither.
func (r *run) questionFor(key string) string {
	for i, q := range r.clarify.questions {
		if key == q || key == strconv.Itoa(i+1) {
			return q
		}
	}
	return ""
}

// validateAnswers accepts answers only while questions are pending and
// only for questions that were asked.
func (r *run) validateAnswers(req signals.AnswerClarificationRequest) error {
	if !r.clarify.waiting {
		return reject(signals.ErrorTypeWrongPhase, "no clarification is pending (phase %s)", r.st.Phase)
	}
	if len(req.Answers) == 0 {
		return reject(signals.ErrorTypeInvalidInput, "answers are empty")
	}
	for _, k := range workflow.DeterministicKeys(req.Answers) {
		if r.questionFor(k) == "" {
			return reject(signals.ErrorTypeInvalidInput, "unknown question %q: answer by question text or number (1..%d)", k, len(r.clarify.questions))
		}
		if err := tooLong(fmt.Sprintf("answer to %q", k), req.Answers[k]); err != nil {
			return err
		}
	}
	return nil
}

// answer stores answers and reports the questions still open.
func (r *run) answer(ctx workflow.Context, req signals.AnswerClarificationRequest) (signals.ClarificationResponse, error) {
	for _, k := range workflow.DeterministicKeys(req.Answers) {
		r.clarify.answers[r.questionFor(k)] = req.Answers[k]
	}
	r.publish(ctx)
	return signals.ClarificationResponse{Accepted: len(req.Answers), Remaining: r.unanswered()}, nil
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
	r.setPaused(ctx, false)
	r.setPhase(ctx, plan.PhaseCompleted)
	r.close(ctx, res)
	return res
}
