package workflows

import (
	"fmt"
	"time"

	"go.temporal.io/sdk/workflow"
)

// watchDeadline returns the context the run works in: ctx, cancelled at
// the run's deadline when it has one. When the deadline passes the run
// keeps the reason, notes it as its last error and halts execution (no
// step starts any more, pending ones are cancelled), then cancels the
// running steps' activities and every wait of the phases; end then ends
// the run failed with the partial summary, in ctx, which the deadline
// leaves alone. A deadline that cannot be resolved against the run's
// start fails the run as an invalid request. Continuations resolve it
// against the first run's start, which the checkpoint carries.
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
		if r.isEnding {
			return
		}
		reason := fmt.Sprintf("deadline reached at %s", stamp(at))
		workflow.GetLogger(ctx).Info("deadline reached", "reason", reason)
		r.passed = reason
		r.noteError(reason)
		r.exec.halt(ctx, halt{kind: haltDeadline, reason: reason})
		cancel()
	})
	return work, nil
}

// stamp formats a time in UTC, the same for every reader.
func stamp(t time.Time) string {
	return t.UTC().Format("2006-01-02 15:04:05 UTC")
}
