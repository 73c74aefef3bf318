package workflows

import (
	"errors"
	"fmt"

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

// await waits for a selection according to the policy: auto takes the
// recommended option at once; manual waits for select-option, with an
// optional timeout whose outcome is the recommended option or a
// cancellation. A refine restarts the wait with a full timeout. The wait
// is a safe point to continue as new (chain.due): then it returns the
// continue-as-new error.
func (s *selection) await(ctx workflow.Context) (err error) {
	if s.policy.Mode == signals.SelectAuto {
		o, _ := recommended(*s.opts)
		s.opts.SelectedID = o.ID
		s.run.publish(ctx)
		s.chosen(ctx, plan.ActorSystem, "auto selection: the recommended option")
		return nil
	}
	s.run.setPhase(ctx, plan.PhaseAwaitingSelection)
	s.waiting = true
	defer func() {
		var can *workflow.ContinueAsNewError
		if errors.As(err, &can) {
			return // the continuation waits on
		}
		s.waiting = false
		s.opts.SelectionTimeout = nil
		s.run.publish(ctx)
	}()
	for s.opts.SelectedID == "" {
		if s.notified != s.opts.Revision {
			s.notified = s.opts.Revision
			s.log.record(ctx, signals.EventAwaitingSelection, nil, fmt.Sprintf("choose one of %d option(s)", len(s.opts.Options)),
				activities.NotifyData{Selection: view.Pending(s.run.view()).Selection})
		}
		timedOut, err := s.wait(ctx)
		if err != nil {
			return err
		}
		if timedOut {
			if err := s.timedOut(); err != nil {
				return err
			}
			s.chosen(ctx, plan.ActorSystem, fmt.Sprintf("no selection within %s: the recommended option", s.policy.Timeout))
		}
	}
	return nil
}

// wait waits for a selection, a new revision or the timeout; a refine in
// progress holds the timeout off. It reports a timeout. When the run
// should continue as new it does, unless a selection came first.
func (s *selection) wait(ctx workflow.Context) (bool, error) {
	rev := s.opts.Revision
	changed := func() bool {
		return s.opts.SelectedID != "" || s.opts.Revision != rev || s.refining || s.chain.due(ctx)
	}
	t := s.policy.Timeout.D()
	ok := true
	var err error
	if t <= 0 {
		s.run.publish(ctx)
		err = workflow.Await(ctx, changed)
	} else {
		dl := workflow.Now(ctx).Add(t)
		if s.deadline != nil {
			// A continuation waits for the deadline its first wait set.
			dl, t = *s.deadline, s.deadline.Sub(workflow.Now(ctx))
			s.deadline = nil
		}
		s.opts.SelectionTimeout = &dl
		s.run.publish(ctx)
		if t <= 0 {
			ok = changed()
		} else {
			ok, err = workflow.AwaitWithTimeout(ctx, t, changed)
		}
	}
	if err != nil || !ok {
		return !ok, err
	}
	if s.chain.due(ctx) && s.opts.SelectedID == "" {
		// A refine that ran meanwhile stays here to announce its options.
		return false, s.chain.continueAsNew(ctx, func() bool {
			return s.opts.SelectedID != "" || s.opts.Revision != rev
		})
	}
	if s.refining {
		s.opts.SelectionTimeout = nil
		s.run.publish(ctx)
		return false, workflow.Await(ctx, func() bool { return !s.refining })
	}
	return false, nil
}

// timedOut applies the timeout outcome.
func (s *selection) timedOut() error {
	if s.policy.OnTimeout == signals.OnTimeoutCancel {
		return &selectionCancelled{reason: fmt.Sprintf("no option selected within %s", s.policy.Timeout)}
	}
	o, _ := recommended(*s.opts)
	s.opts.SelectedID = o.ID
	s.opts.Feedback = append(s.opts.Feedback, fmt.Sprintf("selection timed out after %s: took the recommended option", s.policy.Timeout))
	return nil
}

// refine generates a new revision of options from the feedback while the
// selection waits, and answers it; no selection is taken meanwhile. When
// it fails the previous options stay and the wait goes on.
func (s *selection) refine(ctx workflow.Context, req signals.RefinePlanRequest) (signals.OptionsView, error) {
	s.refining = true
	s.opts.Feedback = append(s.opts.Feedback, req.Feedback)
	s.run.publish(ctx)
	err := s.generate(ctx, req.Feedback, s.opts.Options)
	s.refining = false
	s.run.publish(ctx)
	if err != nil {
		return signals.OptionsView{}, fmt.Errorf("refine: %w", err)
	}
	return *s.opts, nil
}

// awaitOptions answers the options once they exist and no refine is
// running. It fails when the run ends without options (a direct answer, no
// valid option).
func (s *selection) awaitOptions(ctx workflow.Context, _ signals.AwaitOptionsRequest) (signals.OptionsView, error) {
	ready := func() bool { return (s.opts.Revision > 0 && !s.refining) || finishing(s.run.phase()) }
	if err := workflow.Await(ctx, ready); err != nil {
		return signals.OptionsView{}, err
	}
	if s.opts.Revision == 0 {
		return signals.OptionsView{}, fmt.Errorf("the run ended without options (phase %s)", s.run.phase())
	}
	return *s.opts, nil
}

// prepare takes the selected option's plan and snapshots the workspace
// (every first run has one, see newRun), so that rollback can restore it;
// a plan handed in with the request has its snapshot from the lease
// (run.snapshotFirst). From here on the plan is the executor's.
func (r *run) prepare(ctx workflow.Context) error {
	o, ok := r.sel.selected()
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
