package workflows

import (
	"errors"
	"fmt"
	"strings"

	"go.temporal.io/sdk/workflow"

	"github.com/planmode/planmode/activities"
	"github.com/planmode/planmode/plan"
	"github.com/planmode/planmode/signals"
	"github.com/planmode/planmode/view"
)

// selectionCancelled ends a run whose selection timed out with the cancel
// outcome.
type selectionCancelled struct{ reason string }

func (e *selectionCancelled) Error() string { return e.reason }

// selectPhase waits for a selection according to the policy: auto takes
// the recommended option at once; manual waits for select-option, with an
// optional timeout whose outcome is the recommended option or a
// cancellation. A refine restarts the wait with a full timeout. The wait
// is a safe point to continue as new (chain.due): then it returns the
// continue-as-new error.
func (r *run) selectPhase(ctx workflow.Context) (err error) {
	if r.req.Selection.Mode == signals.SelectAuto {
		o, _ := recommended(r.st.Options)
		r.st.Options.SelectedID = o.ID
		r.publish(ctx)
		return nil
	}
	r.setPhase(ctx, plan.PhaseAwaitingSelection)
	r.sel.waiting = true
	defer func() {
		var can *workflow.ContinueAsNewError
		if errors.As(err, &can) {
			return // the continuation waits on
		}
		r.sel.waiting = false
		r.st.Options.SelectionTimeout = nil
		r.publish(ctx)
	}()
	for r.st.Options.SelectedID == "" {
		if r.sel.notified != r.st.Options.Revision {
			r.sel.notified = r.st.Options.Revision
			r.hooks.notify(ctx, activities.EventAwaitingSelection, activities.NotifyData{
				Message: fmt.Sprintf("choose one of %d option(s)", len(r.st.Options.Options)), Selection: view.Pending(r.view()).Selection,
			})
		}
		timedOut, err := r.awaitSelection(ctx)
		if err != nil {
			return err
		}
		if timedOut {
			return r.selectionTimedOut(ctx)
		}
	}
	return nil
}

// awaitSelection waits for a selection, a new revision or the timeout; a
// refine in progress holds the timeout off. It reports a timeout. When the
// run should continue as new it does, unless a selection came first.
func (r *run) awaitSelection(ctx workflow.Context) (bool, error) {
	rev := r.st.Options.Revision
	changed := func() bool {
		return r.st.Options.SelectedID != "" || r.st.Options.Revision != rev || r.sel.refining || r.chain.due(ctx)
	}
	t := r.req.Selection.Timeout.D()
	ok := true
	var err error
	if t <= 0 {
		r.publish(ctx)
		err = workflow.Await(ctx, changed)
	} else {
		dl := workflow.Now(ctx).Add(t)
		if r.sel.deadline != nil {
			// A continuation waits for the deadline its first wait set.
			dl, t = *r.sel.deadline, r.sel.deadline.Sub(workflow.Now(ctx))
			r.sel.deadline = nil
		}
		r.st.Options.SelectionTimeout = &dl
		r.publish(ctx)
		if t <= 0 {
			ok = changed()
		} else {
			ok, err = workflow.AwaitWithTimeout(ctx, t, changed)
		}
	}
	if err != nil || !ok {
		return !ok, err
	}
	if r.chain.due(ctx) && r.st.Options.SelectedID == "" {
		// A refine that ran meanwhile stays here to announce its options.
		return false, r.chain.continueAsNew(ctx, func() bool {
			return r.st.Options.SelectedID != "" || r.st.Options.Revision != rev
		})
	}
	if r.sel.refining {
		r.st.Options.SelectionTimeout = nil
		r.publish(ctx)
		return false, workflow.Await(ctx, func() bool { return !r.sel.refining })
	}
	return false, nil
}

// selectionTimedOut applies the timeout outcome.
func (r *run) selectionTimedOut(ctx workflow.Context) error {
	if r.req.Selection.OnTimeout == signals.OnTimeoutCancel {
		return &selectionCancelled{reason: fmt.Sprintf("no option selected within %s", r.req.Selection.Timeout)}
	}
	o, _ := recommended(r.st.Options)
	r.st.Options.SelectedID = o.ID
	r.st.Options.Feedback = append(r.st.Options.Feedback, fmt.Sprintf("selection timed out after %s: took the recommended option", r.req.Selection.Timeout))
	return nil
}

// choose records the selection of o, with the caller's feedback.
func (r *run) choose(ctx workflow.Context, o plan.Option, feedback string) {
	r.st.Options.SelectedID = o.ID
	if fb := strings.TrimSpace(feedback); fb != "" {
		r.st.Options.Feedback = append(r.st.Options.Feedback, fb)
	}
	r.publish(ctx)
}

// refine generates a new revision of options from feedback while the
// selection waits; no selection is taken meanwhile. On error the previous
// options stay.
func (r *run) refine(ctx workflow.Context, feedback string) error {
	r.sel.refining = true
	r.st.Options.Feedback = append(r.st.Options.Feedback, feedback)
	r.publish(ctx)
	err := r.generate(ctx, feedback, r.st.Options.Options)
	r.sel.refining = false
	r.publish(ctx)
	return err
}

// prepare takes the selected option's plan and snapshots the workspace
// (every first run has one, see newRun), so that rollback can restore it;
// a plan handed in with the request has its snapshot from the lease
// (run.snapshotFirst).
// From here on the plan is the executor's.
func (r *run) prepare(ctx workflow.Context) error {
	o, ok := optionByID(r.st.Options, r.st.Options.SelectedID)
	if !ok {
		return fmt.Errorf("selected option %q not found", r.st.Options.SelectedID)
	}
	p := o.Plan.Clone()
	p.Status = plan.PlanRunning
	p.UpdatedAt = workflow.Now(ctx)
	r.exec.take(&p)
	out := r.lease.snapshot
	r.lease.snapshot = nil
	if out == nil {
		// The plan shows while the snapshot runs; a snapshot the lease
		// took leaves the executor to publish, in this workflow task.
		r.publish(ctx)
		in := activities.SnapshotInput{PlanID: p.ID, Workspace: r.req.Workspace, Files: r.exec.filesRef()}
		snap, err := snapshotWorkspace(ctx, in, "snapshot workspace")
		if err != nil {
			return fmt.Errorf("snapshot workspace: %w", err)
		}
		out = &snap
	}
	r.st.SnapshotID = out.SnapshotID
	r.exec.useFiles(out.Manifest)
	return nil
}

// optionByID returns the option of opts with id.
func optionByID(opts signals.OptionsView, id string) (plan.Option, bool) {
	for _, o := range opts.Options {
		if o.ID == id {
			return o, true
		}
	}
	return plan.Option{}, false
}
