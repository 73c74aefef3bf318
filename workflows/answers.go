package workflows

import (
	"fmt"
	"strconv"
	"time"

	"go.temporal.io/sdk/workflow"

	"github.com/planmode/planmode/activities"
	"github.com/planmode/planmode/plan"
	"github.com/planmode/planmode/signals"
	"github.com/planmode/planmode/view"
)

// clarification is the clarify phase's wait for answers: the questions
// asked and the answers given so far (q), and answer-clarification, the
// input that gives them. Nothing of it is carried over: a run continues
// as new only after clarification.
type clarification struct {
	q view.Clarification
	// timeout is the request's clarify timeout, 0 for none.
	timeout time.Duration
	run     clarifyRun
	log     eventLog
}

// clarifyRun is what the clarification asks of the run: to show it, the
// run as the pending query shows it, and its phase.
type clarifyRun interface {
	publish(ctx workflow.Context)
	view() view.Run
	phase() plan.Phase
}

// await publishes the questions and waits until each has an answer or the
// clarify timeout passes. It returns the answers given so far.
func (c *clarification) await(ctx workflow.Context, questions []string) (map[string]string, error) {
	c.q = view.Clarification{Questions: questions, Answers: map[string]string{}, Waiting: true}
	if c.timeout > 0 {
		dl := workflow.Now(ctx).Add(c.timeout)
		c.q.Deadline = &dl
	}
	c.run.publish(ctx)
	c.log.record(ctx, signals.EventAwaitingClarification, nil, fmt.Sprintf("%d question(s) to answer", len(questions)),
		activities.NotifyData{Clarification: view.Pending(c.run.view()).Clarification})
	defer func() {
		c.q.Waiting = false
		c.run.publish(ctx)
	}()
	done := func() bool { return len(c.q.Unanswered()) == 0 }
	if c.q.Deadline == nil {
		if err := workflow.Await(ctx, done); err != nil {
			return nil, err
		}
		return c.q.Answers, nil
	}
	if _, err := workflow.AwaitWithTimeout(ctx, c.timeout, done); err != nil {
		return nil, err
	}
	return c.q.Answers, nil
}

// validateAnswers accepts answers only while questions are pending and
// only for questions that were asked.
func (c *clarification) validateAnswers(req signals.AnswerClarificationRequest) error {
	q := c.q
	if !q.Waiting {
		return reject(signals.ErrorTypeWrongPhase, "no clarification is pending (phase %s)", c.run.phase())
	}
	if len(req.Answers) == 0 {
		return reject(signals.ErrorTypeInvalidInput, "answers are empty")
	}
	for _, k := range workflow.DeterministicKeys(req.Answers) {
		if questionFor(q, k) == "" {
			return reject(signals.ErrorTypeInvalidInput, "unknown question %q: answer by question text or number (1..%d)", k, len(q.Questions))
		}
		if err := tooLong(fmt.Sprintf("answer to %q", k), req.Answers[k]); err != nil {
			return err
		}
	}
	return nil
}

// answer stores answers, keyed by question text or number (validated),
// and reports the questions still open.
func (c *clarification) answer(ctx workflow.Context, req signals.AnswerClarificationRequest) (signals.ClarificationResponse, error) {
	for _, k := range workflow.DeterministicKeys(req.Answers) {
		c.q.Answers[questionFor(c.q, k)] = req.Answers[k]
	}
	c.run.publish(ctx)
	return signals.ClarificationResponse{Accepted: len(req.Answers), Remaining: c.q.Unanswered()}, nil
}

// questionFor maps an answer's key to its question in q: the question's
// text or its 1-based number. It returns "" for a key that matches
// neither.
func questionFor(q view.Clarification, key string) string {
	for i, text := range q.Questions {
		if key == text || key == strconv.Itoa(i+1) {
			return text
		}
	}
	return ""
}
