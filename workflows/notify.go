package workflows

import (
	"fmt"

	"go.temporal.io/sdk/workflow"

	"github.com/planmode/planmode/activities"
	"github.com/planmode/planmode/plan"
	"github.com/planmode/planmode/signals"
)

// notifySkipChange versions the end of deliveries to nowhere.
const notifySkipChange = "notify-skip-without-receiver"

// notify tells the webhook about event in its own coroutine, so a slow or
// failing receiver never holds the run up; a delivery that fails after the
// activity's retries is logged and dropped. The idempotency key is
// deterministic and unique over the whole chain of runs, so every retry
// sends the same key and a receiver can drop duplicates.
func (r *run) notify(ctx workflow.Context, event activities.NotifyEvent, data activities.NotifyData) {
	// Runs recorded before the skip schedule every event; later runs stop
	// once a delivery found no webhook configured anywhere.
	skips := workflow.GetVersion(ctx, notifySkipChange, workflow.DefaultVersion, 1) >= 1
	if skips && r.st.NoReceiver {
		return
	}
	r.st.NotifySeq++
	data.Goal = r.st.Goal
	in := activities.NotifyInput{
		URL:            r.req.Notify.WebhookURL,
		Event:          event,
		WorkflowID:     r.workflowID,
		RunID:          workflow.GetInfo(ctx).WorkflowExecution.RunID,
		Phase:          r.st.Phase,
		At:             workflow.Now(ctx),
		Data:           data,
		IdempotencyKey: fmt.Sprintf("%s/%s/%d", r.workflowID, event, r.st.NotifySeq),
	}
	r.notifying++
	workflow.Go(ctx, func(ctx workflow.Context) {
		defer func() { r.notifying-- }()
		out, err := notifyWebhook(ctx, in, fmt.Sprintf("notify %s", event))
		if err != nil {
			workflow.GetLogger(ctx).Warn("webhook not delivered", "event", event, "error", err)
		}
		if skips && out.NoReceiver {
			r.st.NoReceiver = true
		}
	})
}

// notifyStep reports a finished step.
func (r *run) notifyStep(ctx workflow.Context, s plan.Step) {
	event := activities.EventStepCompleted
	msg := fmt.Sprintf("step %d/%d %s: %s", s.Number, len(r.st.Plan.Steps), s.Status, s.Title)
	if s.Status != plan.StepCompleted {
		event = activities.EventStepFailed
		if s.Result != nil && s.Result.Error != "" {
			msg += ": " + s.Result.Error
		}
	}
	r.notify(ctx, event, activities.NotifyData{
		Message: msg,
		Step:    &signals.StepRef{ID: s.ID, Number: s.Number, Title: s.Title},
		Percent: r.percent(),
	})
}

// notifyEnd reports how the run ended.
func (r *run) notifyEnd(ctx workflow.Context, res signals.Result) {
	event := activities.EventCompleted
	switch res.Status {
	case signals.StatusFailed:
		event = activities.EventFailed
	case signals.StatusCancelled:
		event = activities.EventCancelled
	}
	r.notify(ctx, event, activities.NotifyData{
		Message: fmt.Sprintf("run %s", res.Status),
		Status:  res.Status,
		Summary: res.Summary,
		Error:   res.Error,
		Percent: r.percent(),
	})
}
