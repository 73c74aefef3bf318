package workflows

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/planmode/planmode/activities"
	"github.com/planmode/planmode/plan"
	"github.com/planmode/planmode/signals"
	"github.com/planmode/planmode/webhook"
)

// TestWebhooksReportStateChanges: every step start, an edit, a pause
// and the resume each send their event, in order, as the other events.
func TestWebhooksReportStateChanges(t *testing.T) {
	h := newHarness(t)
	h.f.onePlan(llmStep("s1"), llmStep("s2", "s1"))
	h.at(stepTime/2, func() { signal(h, signals.Pause, signals.ControlRequest{Reason: "lunch"}) })
	h.at(stepTime+time.Minute, func() {
		s3 := llmStep("s3", "s2")
		signal(h, signals.EditPlan, signals.EditPlanRequest{Reason: "one more", Edits: []plan.Edit{{Op: plan.OpAppend, Step: &s3}}})
	})
	h.at(time.Hour, func() { signal(h, signals.Resume, signals.ControlRequest{}) })
	req := autoReq()
	req.Notify.WebhookURL = "http://127.0.0.1:9/hook"
	res := h.run(req)

	require.Equal(t, signals.StatusCompleted, res.Status)
	assert.Equal(t, []activities.NotifyEvent{
		webhook.EventPlanCreated,
		webhook.EventStepStarted, webhook.EventPaused, webhook.EventStepCompleted, webhook.EventPlanUpdated,
		webhook.EventResumed,
		webhook.EventStepStarted, webhook.EventStepCompleted,
		webhook.EventStepStarted, webhook.EventStepCompleted,
		webhook.EventCompleted,
	}, h.f.events())
	started := h.f.notified()[1]
	require.NotNil(t, started.Data.Step)
	assert.Equal(t, "s1", started.Data.Step.ID)
	assert.Contains(t, started.Data.Message, "step 1/2 started")
	assert.Contains(t, h.f.notified()[4].Data.Message, "plan version 2: edited: one more")
}

// TestWebhookReportsBudgetExceeded sends budget-exceeded when a budget
// stops the run.
func TestWebhookReportsBudgetExceeded(t *testing.T) {
	h := newHarness(t)
	h.f.onePlan(agentStep("a1", 10))
	costlyTurns(h, 10)
	req := autoReq()
	req.Budget = signals.Budget{MaxTokens: 150, OnExceed: signals.BudgetStop}
	req.Notify.WebhookURL = "http://127.0.0.1:9/hook"
	res := h.run(req)

	require.Equal(t, signals.StatusFailed, res.Status)
	assert.Contains(t, h.f.events(), webhook.EventBudgetExceeded)
	for _, in := range h.f.notified() {
		if in.Event == webhook.EventBudgetExceeded {
			assert.Equal(t, "budget exceeded: 205 tokens used, limit 150: stopped", in.Data.Message)
		}
	}
}
