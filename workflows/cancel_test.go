package workflows

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/mock"
	"github.com/stretchr/testify/require"

	"github.com/planmode/planmode/activities"
	"github.com/planmode/planmode/plan"
	"github.com/planmode/planmode/signals"
)

// TestCancelDuringEachWait cancels a run while it waits for each kind of
// input or time: the run ends cancelled with a partial summary, keeps what
// it did and waits for nothing any more.
func TestCancelDuringEachWait(t *testing.T) {
	cases := []struct {
		name  string
		setup func(t *testing.T, h *harness) signals.StartRequest
		at    time.Duration
	}{
		{"clarification", func(t *testing.T, h *harness) signals.StartRequest {
			askingFakes(h)
			req := autoReq()
			req.Clarify.AskQuestions = true
			return req
		}, time.Minute},
		{"refine in progress", func(t *testing.T, h *harness) signals.StartRequest {
			h.at(30*time.Second, func() { signal(h, signals.RefinePlan, signals.RefinePlanRequest{Feedback: "cheaper"}) })
			h.at(45*time.Second, func() {
				require.Contains(t, currentDetails(h), "Refining the options", "the refine is still running")
			})
			options := func(_ contextT, in activities.OptionsInput) (activities.OptionsOutput, error) { return h.f.options(in) }
			h.env.OnActivity(a.GenerateOptions, mockAny, mockAny).Return(options).Once()
			h.env.OnActivity(a.GenerateOptions, mockAny, mockAny).After(time.Hour).Return(options).Once()
			return manualReq()
		}, time.Minute},
		{"skip confirmation", func(t *testing.T, h *harness) signals.StartRequest {
			afterFirst(h, plan.Reflection{Decision: plan.DecisionSkip, StepIDs: []string{"s2"}, Reason: "done", Confidence: 0.1})
			return autoReq()
		}, stepTime + time.Minute},
		{"pause", func(t *testing.T, h *harness) signals.StartRequest {
			h.at(stepTime/2, func() { signal(h, signals.Pause, signals.ControlRequest{Reason: "lunch"}) })
			return autoReq()
		}, stepTime + time.Minute},
		{"retry delay", func(t *testing.T, h *harness) signals.StartRequest {
			s := llmStep("s1")
			s.MaxRetries, s.RetryDelay = 2, plan.Duration(time.Hour)
			h.f.onePlan(s, llmStep("s2", "s1"))
			h.f.llmStep = func(activities.StepInput) (plan.StepResult, error) { return plan.StepResult{Error: "flaky"}, nil }
			return autoReq()
		}, stepTime + time.Minute},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			h := newHarness(t)
			req := tc.setup(t, h)
			h.at(tc.at, func() { h.env.CancelWorkflow() })
			res := h.run(req)

			require.Equal(t, signals.StatusCancelled, res.Status, res.Error)
			assert.Equal(t, "summary: cancelled", res.Summary)
			pending := query(h, signals.PendingQuery)
			assert.Equal(t, signals.AwaitingNone, pending.Awaiting)
			assert.Nil(t, pending.Selection)
			assert.Nil(t, pending.Clarification)
			assert.Empty(t, pending.SkipConfirmations)
			assert.False(t, pending.Paused)
			assert.Equal(t, plan.PhaseCancelled, query(h, signals.ProgressQuery).Phase)
			if res.Plan != nil {
				assert.Equal(t, plan.PlanCancelled, res.Plan.Status)
				for _, s := range res.Plan.Steps {
					assert.True(t, s.Status.Done(), "step %s is %s in a cancelled plan", s.ID, s.Status)
				}
			}
		})
	}
}

// Aliases keep the table above short.
var mockAny = mock.Anything

type contextT = context.Context

func TestQueriesAnswerBeforeOptionsExist(t *testing.T) {
	h := newHarness(t)
	askingFakes(h)
	req := manualReq()
	req.Clarify.AskQuestions = true
	var opts signals.OptionsView
	var pv signals.PlanView
	var prog signals.Progress
	h.at(time.Minute, func() {
		opts = query(h, signals.OptionsQuery)
		pv = query(h, signals.PlanQuery)
		prog = query(h, signals.ProgressQuery)
		assert.Contains(t, currentDetails(h), "Which users?")
		h.env.CancelWorkflow()
	})
	res := h.run(req)

	assert.Zero(t, opts.Revision)
	assert.Empty(t, opts.Options)
	assert.Empty(t, opts.RecommendedID)
	assert.Nil(t, pv.Plan)
	assert.Equal(t, plan.PhaseClarifying, prog.Phase)
	assert.Nil(t, prog.CurrentStep)
	assert.Equal(t, signals.StatusCancelled, res.Status)
}
