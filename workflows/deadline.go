package workflows

import (
	"errors"
	"fmt"
	"time"

	"go.temporal.io/sdk/workflow"
)

// watchDeadline returns the context the run works in: ctx, cancelled at
// the run's deadline when it has one. Cancelling it
// cancels the running steps' activities and every wait of the phases;
// finish then finds the executor's deadline (the reason) set and ends the run failed
// with the partial summary, in ctx, which the deadline leaves alone. A deadline
// that cannot be resolved against the run's start fails the run as an
// invalid request. Continuations resolve it against the first run's start,
// which the checkpoint carries.
func (r *run) watchDeadline(ctx workflow.Context) (workflow.Context, error) {
	d := r.req.Deadline
	if d == "" {
		return ctx, nil
	}
	at, ok, err := d.At(r.st.StartedAt)
	if err != nil {
		return ctx, invalidRequest(err)
	}
	if !ok {
		return ctx, nil
	}
	work, cancel := workflow.WithCancel(ctx)
	workflow.Go(ctx, func(ctx workflow.Context) {
		if wait := at.Sub(workflow.Now(ctx)); wait > 0 {
			if err := workflow.Sleep(ctx, wait); err != nil {
				return
			}
		}
		if r.ending {
			return
		}
		r.exec.reachDeadline(ctx, fmt.Sprintf("deadline reached at %s", stamp(at)))
		cancel()
	})
	return work, nil
}

// reachDeadline halts execution with reason: no step starts any more,
// pending steps are cancelled; the caller then cancels the running ones.
func (e *executor) reachDeadline(ctx workflow.Context, reason string) {
	workflow.GetLogger(ctx).Info("deadline reached", "reason", reason)
	e.deadline = reason
	if e.stopReason == "" {
		e.stopReason = reason
	}
	e.r.noteError(reason)
	e.cancelPending(ctx, reason, false)
	e.r.publish(ctx)
}

// settleDeadline waits for the steps the deadline cancelled to end, marks
// what is left cancelled and returns the error the run ends with.
func (r *run) settleDeadline(ctx workflow.Context) error {
	r.exec.awaitIdle(ctx)
	r.exec.cancelPending(ctx, r.exec.deadline, true)
	r.clarify.Waiting = false
	r.sel.waiting = false
	return errors.New(r.exec.deadline)
}

// stamp formats a time in UTC, the same for every reader.
func stamp(t time.Time) string {
	return t.UTC().Format("2006-01-02 15:04:05 UTC")
}
