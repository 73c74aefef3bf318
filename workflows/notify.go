package workflows

import (
	"encoding/json"
	"fmt"
	"time"

	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/sdk/workflow"

	"github.com/planmode/planmode/activities"
	"github.com/planmode/planmode/plan"
	"github.com/planmode/planmode/signals"
)

// notifier delivers the run's log events that are webhook events
// (activities.NotifyEventOf), each as a PlanNotify child the run does not wait
// for. It owns the sequence of deliveries and whether a receiver exists
// (signals.NotifyState) and counts the deliveries not yet handed off;
// what a body says of the run beyond the event it reads through about.
type notifier struct {
	st    signals.NotifyState
	about about
	// url is the request's webhook, "" for the worker's.
	url        string
	workflowID string
	// notifying counts webhook deliveries not yet handed off: PlanNotify
	// children not yet started.
	notifying int
}

// about is what the notifier reads of the run its events tell of.
type about interface {
	goal() string
	phase() plan.Phase
	percent() int
}

// deliver tells the webhook about e, when it is a webhook event, without
// holding the run up; a delivery that fails after its retries is logged
// and dropped. The body's data is the event's (the journal recorded
// webhook events' data in the body's shape) with the message, the step,
// the goal and, but for the asks of a person, the percent done. The
// idempotency key is deterministic and unique over the whole chain of
// runs, so every retry sends the same key and a receiver can drop
// duplicates. The delivery is a PlanNotify child workflow the run does
// not wait for (see start). Once a delivery found no webhook configured
// anywhere, the run (and its continuations) send no more.
func (n *notifier) deliver(ctx workflow.Context, e signals.Event) {
	if _, ok := activities.NotifyEventOf(e.Type, ""); !ok || n.st.NoReceiver {
		return
	}
	var data activities.NotifyData
	if len(e.Data) > 0 {
		// The journal marshalled it: it decodes.
		_ = json.Unmarshal(e.Data, &data) //workflowcheck:ignore
	}
	event, _ := activities.NotifyEventOf(e.Type, data.Status)
	n.st.NotifySeq++
	data.Goal, data.Message, data.Step = n.about.goal(), e.Message, e.Step
	if !asksAPerson(e.Type) {
		data.Percent = n.about.percent()
	}
	in := activities.NotifyInput{
		URL:            n.url,
		Event:          event,
		WorkflowID:     n.workflowID,
		RunID:          workflow.GetInfo(ctx).WorkflowExecution.RunID,
		Phase:          n.about.phase(),
		At:             e.At,
		Data:           data,
		IdempotencyKey: fmt.Sprintf("%s/%s/%d", n.workflowID, event, n.st.NotifySeq),
	}
	n.start(ctx, in)
}

// asksAPerson reports whether an event of type t asks a person for
// something (an awaiting-* or approval-* event), whose body tells what is
// asked, not how far the work is.
func asksAPerson(t signals.EventType) bool {
	switch t {
	case signals.EventAwaitingSelection, signals.EventAwaitingClarification, signals.EventAwaitingConfirmation,
		signals.EventApprovalRequested, signals.EventApprovalReminder, signals.EventApprovalDecided:
		return true
	}
	return false
}

// askReceiver asks the worker, at the start of a run that may still have
// a receiver and names no webhook of its own, whether the worker has one;
// when it has none, the run sends no deliveries (each would be a child
// workflow that finds nobody to tell). A local activity costs one marker
// event and no round trip; a run that gets no answer delivers as before,
// and its first delivery finds out.
func (n *notifier) askReceiver(ctx workflow.Context) {
	if n.st.NoReceiver || n.url != "" {
		return
	}
	ctx = workerCtx(ctx, "whether the worker has a webhook")
	var out activities.ReceiverOutput
	err := workflow.ExecuteLocalActivity(ctx, a.Receiver).Get(ctx, &out)
	if err != nil {
		workflow.GetLogger(ctx).Warn("the worker did not say whether it has a webhook", "error", err)
		return
	}
	n.st.NoReceiver = out.None
}

// start starts a PlanNotify child workflow for in. The child is
// abandoned when the run closes or continues as new, so the run waits only
// until the child has started (notifying), never for the receiver. It
// is started in a disconnected context: cancelling the plan must not
// cancel its deliveries, least of all the one that reports the
// cancellation. Its id is the run's id, "notify" and the event's sequence
// number, unique across plans that reuse a workflow id.
func (n *notifier) start(ctx workflow.Context, in activities.NotifyInput) {
	ctx, _ = workflow.NewDisconnectedContext(ctx)
	ctx = workflow.WithChildOptions(ctx, workflow.ChildWorkflowOptions{
		WorkflowID:               fmt.Sprintf("%s/notify/%s/%d", n.workflowID, in.RunID, n.st.NotifySeq),
		ParentClosePolicy:        enumspb.PARENT_CLOSE_POLICY_ABANDON,
		WorkflowExecutionTimeout: notifyChildTimeout,
		StaticSummary:            fmt.Sprintf("webhook %s of %s", in.Event, n.workflowID),
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
			n.st.NoReceiver = true
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
// start), so the delivery outlives the plan and a slow receiver never
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

// delivering reports whether a delivery is not handed off yet.
func (n *notifier) delivering() bool {
	return n.notifying > 0
}
