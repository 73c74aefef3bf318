package workflows

import (
	"fmt"
	"time"

	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/sdk/workflow"

	"github.com/planmode/planmode/activities"
	"github.com/planmode/planmode/plan"
	"github.com/planmode/planmode/signals"
)

// notifier sends the run's webhook events, each as a PlanNotify child the
// run does not wait for. It writes the sequence of events and whether a
// receiver exists (st.NotifySeq, st.NoReceiver) and counts the deliveries
// not yet handed off; the rest it reads from the run.
type notifier struct {
	r *run
	// notifying counts webhook deliveries not yet handed off: PlanNotify
	// children not yet started.
	notifying int
}

// notify tells the webhook about event without holding the run up; a
// delivery that fails after its retries is logged and dropped. The
// idempotency key is deterministic and unique over the whole chain of
// runs, so every retry sends the same key and a receiver can drop
// duplicates. The delivery is a PlanNotify child workflow the run does
// not wait for (see deliver). Once a delivery found no webhook configured
// anywhere, the run (and its continuations) send no more.
func (n *notifier) notify(ctx workflow.Context, event activities.NotifyEvent, data activities.NotifyData) {
	r := n.r
	if r.st.NoReceiver {
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
	n.deliver(ctx, in)
}

// askReceiver asks the worker, at the start of a run that may still have
// a receiver and names no webhook of its own, whether the worker has one;
// when it has none, the run sends no deliveries (each would be a child
// workflow that finds nobody to tell). A local activity costs one marker
// event and no round trip; a run that gets no answer delivers as before,
// and its first delivery finds out.
func (n *notifier) askReceiver(ctx workflow.Context) {
	r := n.r
	if r.st.NoReceiver || r.req.Notify.WebhookURL != "" {
		return
	}
	ctx = workerCtx(ctx, "whether the worker has a webhook")
	var out activities.ReceiverOutput
	err := workflow.ExecuteLocalActivity(ctx, a.Receiver).Get(ctx, &out)
	if err != nil {
		workflow.GetLogger(ctx).Warn("the worker did not say whether it has a webhook", "error", err)
		return
	}
	r.st.NoReceiver = out.None
}

// deliver starts a PlanNotify child workflow for in. The child is
// abandoned when the run closes or continues as new, so the run waits only
// until the child has started (notifying), never for the receiver. It
// is started in a disconnected context: cancelling the plan must not
// cancel its deliveries, least of all the one that reports the
// cancellation. Its id is the run's id, "notify" and the event's sequence
// number, unique across plans that reuse a workflow id.
func (n *notifier) deliver(ctx workflow.Context, in activities.NotifyInput) {
	r := n.r
	ctx, _ = workflow.NewDisconnectedContext(ctx)
	ctx = workflow.WithChildOptions(ctx, workflow.ChildWorkflowOptions{
		WorkflowID:               fmt.Sprintf("%s/notify/%s/%d", r.workflowID, in.RunID, r.st.NotifySeq),
		ParentClosePolicy:        enumspb.PARENT_CLOSE_POLICY_ABANDON,
		WorkflowExecutionTimeout: notifyChildTimeout,
		StaticSummary:            fmt.Sprintf("webhook %s of %s", in.Event, r.workflowID),
	})
	f := workflow.ExecuteChildWorkflow(ctx, PlanNotify, in)
	n.notifying++
	workflow.Go(ctx, func(ctx workflow.Context) {
		err := f.GetChildWorkflowExecution().Get(ctx, nil)
		n.notifying--
		if err != nil {
			workflow.GetLogger(ctx).Warn("webhook delivery not started", "event", in.Event, "error", err)
			return
		}
		// Only while the run is open: after that nobody reads the answer.
		var out activities.NotifyOutput
		if err := f.Get(ctx, &out); err != nil {
			workflow.GetLogger(ctx).Warn("webhook not delivered", "event", in.Event, "error", err)
		}
		if out.NoReceiver {
			r.st.NoReceiver = true
		}
	})
}

// Bounds of one webhook delivery run as a PlanNotify child.
const (
	// notifyScheduleToClose bounds the Notify activity, retries included.
	notifyScheduleToClose = 5 * time.Minute
	// notifyChildTimeout bounds the child as a whole.
	notifyChildTimeout = notifyScheduleToClose + time.Minute
)

// PlanNotify delivers one webhook event of a plan: the Notify activity
// with the activities' retry policy, within notifyScheduleToClose. A plan
// starts it as a child workflow with parent close policy ABANDON (see
// deliver), so the delivery outlives the plan and a slow receiver never
// holds the plan open; the activity signs the request and sends the
// event's idempotency key as before. Workers register it under
// signals.NotifyWorkflowType. It returns the activity's answer, or its
// error once the retries are spent.
func PlanNotify(ctx workflow.Context, in activities.NotifyInput) (activities.NotifyOutput, error) {
	ctx = workflow.WithActivityOptions(ctx, workflow.ActivityOptions{
		StartToCloseTimeout:    notifyStartToClose,
		ScheduleToCloseTimeout: notifyScheduleToClose,
		RetryPolicy:            retryPolicy,
		Summary:                fmt.Sprintf("notify %s", in.Event),
	})
	out, err := call(ctx, a.Notify, in)
	if err != nil {
		return out, fmt.Errorf("deliver %s: %w", in.Event, err)
	}
	return out, nil
}

// step reports a finished step.
func (n *notifier) step(ctx workflow.Context, s plan.Step) {
	event := activities.EventStepCompleted
	msg := fmt.Sprintf("step %d/%d %s: %s", s.Number, len(n.r.st.Plan.Steps), s.Status, s.Title)
	if s.Status != plan.StepCompleted {
		event = activities.EventStepFailed
		if s.Result != nil && s.Result.Error != "" {
			msg += ": " + s.Result.Error
		}
	}
	n.notify(ctx, event, activities.NotifyData{
		Message: msg,
		Step:    &signals.StepRef{ID: s.ID, Number: s.Number, Title: s.Title},
		Percent: n.r.exec.percent(),
	})
}

// change reports a change of the run's state (step started, plan
// updated, paused, resumed, budget exceeded), with the step it concerns
// when there is one.
func (n *notifier) change(ctx workflow.Context, event activities.NotifyEvent, msg string, step *plan.Step) {
	data := activities.NotifyData{Message: msg, Percent: n.r.exec.percent()}
	if step != nil {
		data.Step = &signals.StepRef{ID: step.ID, Number: step.Number, Title: step.Title}
	}
	n.notify(ctx, event, data)
}

// end reports how the run ended.
func (n *notifier) end(ctx workflow.Context, res signals.Result) {
	event := activities.EventCompleted
	switch res.Status {
	case signals.StatusFailed:
		event = activities.EventFailed
	case signals.StatusCancelled:
		event = activities.EventCancelled
	}
	n.notify(ctx, event, activities.NotifyData{
		Message: fmt.Sprintf("run %s", res.Status),
		Status:  res.Status,
		Summary: res.Summary,
		Error:   res.Error,
		Percent: n.r.exec.percent(),
	})
}
