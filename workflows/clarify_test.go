package workflows

import (
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/planmode/planmode/activities"
	"github.com/planmode/planmode/plan"
	"github.com/planmode/planmode/signals"
)

func TestClarifyAnswersDirectly(t *testing.T) {
	h := newHarness(t)
	h.f.clarify = func(activities.ClarifyInput) (activities.ClarifyOutput, error) {
		return activities.ClarifyOutput{DirectAnswer: "Use bcrypt.", Usage: plan.Usage{TotalTokens: 7}, Offline: true}, nil
	}
	res := h.run(autoReq())

	assert.Equal(t, signals.StatusAnswered, res.Status)
	assert.Equal(t, "Use bcrypt.", res.Summary)
	assert.Equal(t, 7, res.Tokens)
	assert.True(t, res.Offline)
	assert.Nil(t, res.Plan)
	assert.Zero(t, h.f.count("GenerateOptions"))
	assert.Zero(t, h.f.count("Summarize"))
	assert.Equal(t, plan.PhaseCompleted, query(h, signals.ProgressQuery).Phase)
}

// askingFakes makes Clarify ask two questions, then turn the answers into
// a clarified goal.
func askingFakes(h *harness) {
	h.f.clarify = func(in activities.ClarifyInput) (activities.ClarifyOutput, error) {
		if len(in.Answers) > 0 {
			return activities.ClarifyOutput{Goal: "JWT for " + in.Answers["Which users?"] + " via " + in.Answers["Which store?"]}, nil
		}
		return activities.ClarifyOutput{Goal: in.Task.Goal, Questions: []string{"Which users?", "Which store?"}}, nil
	}
}

func TestClarifyQuestionsAnsweredBySignalAndUpdate(t *testing.T) {
	h := newHarness(t)
	askingFakes(h)
	req := autoReq()
	req.Clarify.AskQuestions = true
	var first *outcome[signals.ClarificationResponse]
	var pending signals.Pending
	h.at(time.Minute, func() {
		pending = query(h, signals.PendingQuery)
		first = update(h, signals.AnswerClarification, signals.AnswerClarificationRequest{Answers: map[string]string{"Which users?": "admins"}})
	})
	h.at(2*time.Minute, func() {
		signal(h, signals.AnswerClarification, signals.AnswerClarificationRequest{Answers: map[string]string{"2": "postgres"}})
	})
	res := h.run(req)

	assert.Equal(t, signals.AwaitingClarification, pending.Awaiting)
	require.NotNil(t, pending.Clarification)
	assert.Equal(t, []string{"Which users?", "Which store?"}, pending.Clarification.Questions)
	got := requireAccepted(t, first)
	assert.Equal(t, 1, got.Accepted)
	assert.Equal(t, []string{"Which store?"}, got.Remaining)

	require.Equal(t, signals.StatusCompleted, res.Status)
	h.f.mu.Lock()
	defer h.f.mu.Unlock()
	require.Len(t, h.f.clarifyIn, 2)
	assert.True(t, h.f.clarifyIn[0].AskQuestions)
	assert.Equal(t, map[string]string{"Which users?": "admins", "Which store?": "postgres"}, h.f.clarifyIn[1].Answers)
	assert.False(t, h.f.clarifyIn[1].AskQuestions)
	assert.Equal(t, "JWT for admins via postgres", h.f.optionsIn[0].Task.Goal)
}

func TestClarifyTimeoutProceedsWithOriginalGoal(t *testing.T) {
	h := newHarness(t)
	askingFakes(h)
	req := autoReq()
	req.Clarify = signals.ClarifyPolicy{AskQuestions: true, Timeout: plan.Duration(10 * time.Minute)}
	var pending signals.Pending
	h.at(time.Minute, func() { pending = query(h, signals.PendingQuery) })
	start := h.env.Now()
	res := h.run(req)

	require.NotNil(t, pending.Clarification)
	require.NotNil(t, pending.Clarification.Deadline)
	assert.True(t, start.Add(10*time.Minute).Equal(*pending.Clarification.Deadline))
	assert.Equal(t, signals.StatusCompleted, res.Status)
	assert.Equal(t, 1, h.f.count("Clarify"), "no answers, no second clarify")
	h.f.mu.Lock()
	defer h.f.mu.Unlock()
	assert.Equal(t, "Add JWT authentication", h.f.optionsIn[0].Task.Goal)
}

func TestClarifyWithoutQuestionsWhenNotAllowed(t *testing.T) {
	h := newHarness(t)
	askingFakes(h)
	res := h.run(autoReq())

	assert.Equal(t, signals.StatusCompleted, res.Status)
	h.f.mu.Lock()
	defer h.f.mu.Unlock()
	require.Len(t, h.f.clarifyIn, 1)
	assert.False(t, h.f.clarifyIn[0].AskQuestions)
}

func TestClarifyErrorKeepsOriginalGoal(t *testing.T) {
	h := newHarness(t)
	h.f.clarify = func(activities.ClarifyInput) (activities.ClarifyOutput, error) {
		return activities.ClarifyOutput{}, errors.New("model unavailable")
	}
	res := h.run(autoReq())

	assert.Equal(t, signals.StatusCompleted, res.Status)
	assert.Equal(t, activityAttempts, h.f.count("Clarify"), "Temporal retries the activity first")
	h.f.mu.Lock()
	defer h.f.mu.Unlock()
	assert.Equal(t, "Add JWT authentication", h.f.optionsIn[0].Task.Goal)
}

func TestAnswerClarificationRejections(t *testing.T) {
	h := newHarness(t)
	askingFakes(h)
	req := autoReq()
	req.Clarify.AskQuestions = true
	var unknown, empty, late *outcome[signals.ClarificationResponse]
	h.at(time.Minute, func() {
		unknown = update(h, signals.AnswerClarification, signals.AnswerClarificationRequest{Answers: map[string]string{"Which colour?": "red"}})
		empty = update(h, signals.AnswerClarification, signals.AnswerClarificationRequest{})
		signal(h, signals.AnswerClarification, signals.AnswerClarificationRequest{Answers: map[string]string{"1": "admins", "2": "postgres"}})
	})
	h.at(90*time.Second, func() {
		late = update(h, signals.AnswerClarification, signals.AnswerClarificationRequest{Answers: map[string]string{"1": "x"}})
	})
	res := h.run(req)

	requireRejected(t, unknown, `unknown question "Which colour?"`)
	requireRejected(t, empty, "answers are empty")
	requireRejected(t, late, "no clarification is pending")
	assert.Equal(t, signals.StatusCompleted, res.Status)
}

func TestPauseBeforeADirectAnswerDoesNotOutliveTheRun(t *testing.T) {
	h := newHarness(t)
	h.f.clarify = func(in activities.ClarifyInput) (activities.ClarifyOutput, error) {
		if len(in.Answers) > 0 {
			return activities.ClarifyOutput{DirectAnswer: "Use bcrypt."}, nil
		}
		return activities.ClarifyOutput{Goal: in.Task.Goal, Questions: []string{"Which hash?"}}, nil
	}
	req := autoReq()
	req.Clarify.AskQuestions = true
	h.at(30*time.Second, func() { signal(h, signals.Pause, signals.ControlRequest{Reason: "lunch"}) })
	h.at(time.Minute, func() {
		signal(h, signals.AnswerClarification, signals.AnswerClarificationRequest{Answers: map[string]string{"1": "bcrypt"}})
	})
	res := h.run(req)

	require.Equal(t, signals.StatusAnswered, res.Status)
	assert.False(t, query(h, signals.PendingQuery).Paused, "an answered run is not paused")
	prog := query(h, signals.ProgressQuery)
	assert.False(t, prog.Paused)
	assert.Equal(t, plan.ModeNormal, prog.Mode)
	assert.NotContains(t, currentDetails(h), "## Paused")
}
