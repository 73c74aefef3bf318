package workflows

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/mock"
	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/activity"
	sdktest "go.temporal.io/sdk/testsuite"

	"github.com/planmode/planmode/activities"
	"github.com/planmode/planmode/plan"
	"github.com/planmode/planmode/signals"
	"github.com/planmode/planmode/webhook"
)

func TestWebhookEventsFollowTheRun(t *testing.T) {
	h := newHarness(t)
	skipS2(h, 0.5)
	h.selectAt(time.Minute)
	h.at(stepTime+90*time.Second, func() {
		signal(h, signals.ConfirmSkip, signals.ConfirmSkipRequest{RequestID: "skip-1", Approve: false})
	})
	res := h.run(manualReq())

	require.Equal(t, signals.StatusCompleted, res.Status)
	assert.Equal(t, []activities.NotifyEvent{
		webhook.EventPlanCreated, webhook.EventAwaitingSelection,
		webhook.EventStepStarted, webhook.EventStepCompleted, webhook.EventAwaitingConfirmation,
		webhook.EventStepStarted, webhook.EventStepCompleted,
		webhook.EventStepStarted, webhook.EventStepCompleted,
		webhook.EventCompleted,
	}, h.f.events())

	sent := h.f.notified()
	sel := sent[1]
	require.NotNil(t, sel.Data.Selection)
	assert.Equal(t, []string{"r1-o1", "r1-o2"}, sel.Data.Selection.OptionIDs)
	assert.Equal(t, "Add JWT authentication", sel.Data.Goal)
	assert.Equal(t, "default-test-workflow-id/awaiting-selection/2", sel.IdempotencyKey)
	skip := sent[4]
	require.NotNil(t, skip.Data.Skip)
	assert.Equal(t, "skip-1", skip.Data.Skip.RequestID)
	step := sent[3]
	require.NotNil(t, step.Data.Step)
	assert.Equal(t, "s1", step.Data.Step.ID)
	assert.Equal(t, 33, step.Data.Percent)
	end := sent[9]
	assert.Equal(t, signals.StatusCompleted, end.Data.Status)
	assert.Equal(t, "summary: completed", end.Data.Summary)
	keys := map[string]bool{}
	for _, in := range sent {
		assert.False(t, keys[in.IdempotencyKey], "key %s reused", in.IdempotencyKey)
		keys[in.IdempotencyKey] = true
	}
}

func TestWebhookURLOfThePlanReachesEveryEvent(t *testing.T) {
	h := newHarness(t)
	req := autoReq()
	req.Notify.WebhookURL = "https://hooks.example.com/plan-7"
	res := h.run(req)

	require.Equal(t, signals.StatusCompleted, res.Status)
	sent := h.f.notified()
	require.NotEmpty(t, sent)
	for _, in := range sent {
		assert.Equal(t, "https://hooks.example.com/plan-7", in.URL, "event %s", in.Event)
	}
}

func TestNoWebhookAnywhereStopsDeliveriesAfterTheFirst(t *testing.T) {
	h := newHarness(t)
	h.f.notify = func(activities.NotifyInput) (activities.NotifyOutput, error) {
		return activities.NotifyOutput{NoReceiver: true}, nil
	}
	res := h.run(autoReq())

	require.Equal(t, signals.StatusCompleted, res.Status)
	// The first step may start (and say so) before the first delivery's
	// answer is back; nothing after that answer is delivered.
	events := h.f.events()
	require.NotEmpty(t, events)
	assert.Equal(t, webhook.EventPlanCreated, events[0])
	assert.Subset(t, []activities.NotifyEvent{webhook.EventPlanCreated, webhook.EventStepStarted}, events,
		"the first delivery finds no receiver; no later event is scheduled")
}

func TestNoWebhookOnTheWorkerStartsNoDelivery(t *testing.T) {
	h := newHarness(t)
	h.f.receiver = func() (activities.ReceiverOutput, error) { return activities.ReceiverOutput{None: true}, nil }
	res := h.run(autoReq())

	require.Equal(t, signals.StatusCompleted, res.Status)
	assert.Empty(t, h.f.events(), "a plan with no receiver starts no PlanNotify child")
	assert.Equal(t, 1, h.f.count("Receiver"), "asked once, at the start")
}

func TestAWebhookOfThePlanNeedsNoQuestion(t *testing.T) {
	h := newHarness(t)
	h.f.receiver = func() (activities.ReceiverOutput, error) { return activities.ReceiverOutput{None: true}, nil }
	req := autoReq()
	req.Notify.WebhookURL = "https://hooks.example.com/plan-7"
	res := h.run(req)

	require.Equal(t, signals.StatusCompleted, res.Status)
	assert.Zero(t, h.f.count("Receiver"), "the plan names its receiver")
	assert.Contains(t, h.f.events(), webhook.EventCompleted)
}

func TestNoAnswerAboutTheWebhookDeliversAsBefore(t *testing.T) {
	h := newHarness(t)
	h.f.receiver = func() (activities.ReceiverOutput, error) {
		return activities.ReceiverOutput{}, errors.New("worker lost")
	}
	res := h.run(autoReq())

	require.Equal(t, signals.StatusCompleted, res.Status)
	assert.Contains(t, h.f.events(), webhook.EventCompleted, "the run still tells the webhook")
}

func TestWebhookReportsFailuresAndClarification(t *testing.T) {
	h := newHarness(t)
	askingFakes(h)
	h.f.llmStep = func(in activities.StepInput) (plan.StepResult, error) {
		return plan.StepResult{Error: "compile error"}, nil
	}
	req := autoReq()
	req.Clarify = signals.ClarifyPolicy{AskQuestions: true, Timeout: plan.Duration(time.Minute)}
	res := h.run(req)

	require.Equal(t, signals.StatusFailed, res.Status)
	events := h.f.events()
	assert.Equal(t, webhook.EventAwaitingClarification, events[0])
	assert.Contains(t, events, webhook.EventStepFailed)
	assert.Equal(t, webhook.EventFailed, events[len(events)-1])
}

func TestFailingWebhookDoesNotHoldTheRun(t *testing.T) {
	h := newHarness(t)
	h.f.notify = func(activities.NotifyInput) (activities.NotifyOutput, error) {
		return activities.NotifyOutput{}, errors.New("receiver down")
	}
	res := h.run(autoReq())

	assert.Equal(t, signals.StatusCompleted, res.Status)
	assert.Equal(t, []string{"s1", "s2", "s3"}, h.f.stepIDs())
	assert.Equal(t, 8*activityAttempts, h.f.count("Notify"), "each of 8 events tried %d times", activityAttempts)
}

func TestAwaitOptionsAnswersOnceOptionsExist(t *testing.T) {
	h := newHarness(t)
	var early *outcome[signals.OptionsView]
	h.register()
	// Sent before the first workflow task, as Update-with-Start does.
	h.at(0, func() {
		early = sendUpdate[signals.OptionsView](h, signals.AwaitOptions.Name, signals.AwaitOptionsRequest{})
	})
	var late *outcome[signals.OptionsView]
	h.selectAt(time.Minute)
	h.at(90*time.Second, func() {
		late = sendUpdate[signals.OptionsView](h, signals.AwaitOptions.Name, signals.AwaitOptionsRequest{})
	})
	h.env.ExecuteWorkflow(PlanMode, manualReq())
	require.NoError(t, h.env.GetWorkflowError())

	got := requireAccepted(t, early)
	assert.Equal(t, 1, got.Revision)
	assert.Len(t, got.Options, 2)
	assert.Equal(t, "r1-o1", got.RecommendedID)
	requireRejected(t, late, "passed selection")
}

func TestAwaitOptionsFailsWhenRunEndsWithoutOptions(t *testing.T) {
	h := newHarness(t)
	h.f.clarify = func(activities.ClarifyInput) (activities.ClarifyOutput, error) {
		return activities.ClarifyOutput{DirectAnswer: "42"}, nil
	}
	var o *outcome[signals.OptionsView]
	h.at(0, func() {
		o = sendUpdate[signals.OptionsView](h, signals.AwaitOptions.Name, signals.AwaitOptionsRequest{})
	})
	res := h.run(autoReq())

	assert.Equal(t, signals.StatusAnswered, res.Status)
	require.True(t, o.done)
	require.NoError(t, o.rejected)
	require.Error(t, o.err)
	assert.Contains(t, o.err.Error(), "ended without options")
}

func TestBlockingWebhookDoesNotDelayTheEnd(t *testing.T) {
	h := newHarness(t)
	// Every delivery takes an hour, far longer than the run.
	h.env.OnActivity(a.Notify, mock.Anything, mock.Anything).After(time.Hour).Return(
		func(_ context.Context, in activities.NotifyInput) (activities.NotifyOutput, error) {
			record(h.f, "Notify", &h.f.notifyIn, in)
			return activities.NotifyOutput{Sent: true, StatusCode: 204}, nil
		})
	var closedEarly bool
	var deliveredEarly int
	h.at(30*time.Minute, func() {
		closedEarly = h.env.IsWorkflowCompleted()
		deliveredEarly = h.f.count("Notify")
	})
	res := h.run(autoReq())

	require.Equal(t, signals.StatusCompleted, res.Status)
	assert.True(t, closedEarly, "the plan closed while its deliveries were still running")
	assert.Zero(t, deliveredEarly, "no delivery had finished by then")
	assert.Equal(t, []activities.NotifyEvent{
		webhook.EventPlanCreated,
		webhook.EventStepStarted, webhook.EventStepCompleted,
		webhook.EventStepStarted, webhook.EventStepCompleted,
		webhook.EventStepStarted, webhook.EventStepCompleted,
		webhook.EventCompleted,
	}, h.f.events(), "every delivery still happens, after the plan closed")
	for _, in := range h.f.notified() {
		assert.Contains(t, in.IdempotencyKey, "default-test-workflow-id/", "keys keep their form")
	}
}

func TestPlanNotifyBoundsTheDelivery(t *testing.T) {
	var suite sdktest.WorkflowTestSuite
	env := suite.NewTestWorkflowEnvironment()
	var opts activity.Info // of the last attempt
	env.OnActivity(a.Notify, mock.Anything, mock.Anything).Return(
		func(ctx context.Context, in activities.NotifyInput) (activities.NotifyOutput, error) {
			opts = activity.GetInfo(ctx)
			return activities.NotifyOutput{}, errors.New("receiver down")
		})
	env.ExecuteWorkflow(PlanNotify, activities.NotifyInput{Event: webhook.EventCompleted, IdempotencyKey: "p/completed/9"})

	require.Error(t, env.GetWorkflowError(), "a delivery that fails after its retries fails the child only")
	assert.Contains(t, env.GetWorkflowError().Error(), "deliver completed")
	assert.Equal(t, int32(activityAttempts), opts.Attempt, "the retry policy is kept")
	assert.Equal(t, notifyScheduleToClose, opts.ScheduleToCloseTimeout, "the delivery is bounded in time")
	assert.Equal(t, notifyStartToClose, opts.StartToCloseTimeout)
}
