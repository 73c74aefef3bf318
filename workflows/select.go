package workflows

import (
	"errors"
	"fmt"
	"strings"

	"go.temporal.io/sdk/workflow"

	"github.com/planmode/planmode/activities"
	"github.com/planmode/planmode/plan"
	"github.com/planmode/planmode/signals"
)

// selectionCancelled ends a run whose selection timed out with the cancel
// outcome.
type selectionCancelled struct{ reason string }

func (e *selectionCancelled) Error() string { return e.reason }

// selectPhase waits for a selection according to the policy: auto takes
// the recommended option at once; manual waits for select-option, with an
// optional timeout whose outcome is the recommended option or a
// cancellation. A refine restarts the wait with a full timeout. The wait
// is a safe point to continue as new (continueDue): then it returns the
// continue-as-new error.
func (r *run) selectPhase(ctx workflow.Context) (err error) {
	if r.req.Selection.Mode == signals.SelectAuto {
		o, _ := r.recommended()
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
			r.notify(ctx, activities.EventAwaitingSelection, activities.NotifyData{
				Message: fmt.Sprintf("choose one of %d option(s)", len(r.st.Options.Options)), Selection: r.pending().Selection,
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
		return r.st.Options.SelectedID != "" || r.st.Options.Revision != rev || r.sel.refining || r.continueDue(ctx)
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
	if r.continueDue(ctx) && r.st.Options.SelectedID == "" {
		// A refine that ran meanwhile stays here to announce its options.
		return false, r.continueAsNew(ctx, func() bool {
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
	o, _ := r.recommended()
	r.st.Options.SelectedID = o.ID
	r.st.Options.Feedback = append(r.st.Options.Feedback, fmt.Sprintf("selection timed out after %s: took the recommended option", r.req.Selection.Timeout))
	return nil
}

// findOption resolves a selection request to an option.
func (r *run) findOption(req signals.SelectOptionRequest) (plan.Option, error) {
	if req.OptionID != "" {
		if o, ok := r.optionByID(req.OptionID); ok {
			return o, nil
		}
		return plan.Option{}, reject(signals.ErrorTypeUnknownOption, "unknown option %q (options: %s)", req.OptionID, strings.Join(r.optionIDs(), ", "))
	}
	if req.Rank == 0 {
		return plan.Option{}, reject(signals.ErrorTypeInvalidInput, "optionId or rank is required")
	}
	for _, o := range r.st.Options.Options {
		if o.Rank == req.Rank {
			return o, nil
		}
	}
	return plan.Option{}, reject(signals.ErrorTypeUnknownOption, "no option has rank %d (ranks 1..%d)", req.Rank, len(r.st.Options.Options))
}

// optionIDs lists the current option ids in rank order.
func (r *run) optionIDs() []string {
	ids := make([]string, 0, len(r.st.Options.Options))
	for _, o := range r.st.Options.Options {
		ids = append(ids, o.ID)
	}
	return ids
}

// validateSelect accepts a selection only while one is awaited.
func (r *run) validateSelect(req signals.SelectOptionRequest) error {
	if err := r.awaitingSelection(); err != nil {
		return err
	}
	if err := tooLong("feedback", req.Feedback); err != nil {
		return err
	}
	_, err := r.findOption(req)
	return err
}

// awaitingSelection says why selection inputs are refused, if they are.
// Several inputs can arrive in one workflow task: once one of them selected
// an option, the others are refused even though the selection phase has not
// woken yet to stop waiting, so the option a caller was answered with is
// the one that runs and no refine replaces the options under it.
func (r *run) awaitingSelection() error {
	switch {
	case !r.sel.waiting:
		return reject(signals.ErrorTypeWrongPhase, "not awaiting a selection (phase %s)", r.st.Phase)
	case r.st.Options.SelectedID != "":
		return reject(signals.ErrorTypeWrongPhase, "option %q is already selected", r.st.Options.SelectedID)
	case r.sel.refining:
		return reject(signals.ErrorTypeBusy, "options are being refined: wait for the new options")
	}
	return nil
}

// selectOption records the selection and its feedback.
func (r *run) selectOption(ctx workflow.Context, req signals.SelectOptionRequest) (signals.SelectOptionResponse, error) {
	o, err := r.findOption(req)
	if err != nil {
		return signals.SelectOptionResponse{}, err
	}
	r.st.Options.SelectedID = o.ID
	if fb := strings.TrimSpace(req.Feedback); fb != "" {
		r.st.Options.Feedback = append(r.st.Options.Feedback, fb)
	}
	r.publish(ctx)
	return signals.SelectOptionResponse{Option: o}, nil
}

// validateRefine accepts a refine only while a selection is awaited.
func (r *run) validateRefine(req signals.RefinePlanRequest) error {
	if err := r.awaitingSelection(); err != nil {
		return err
	}
	if strings.TrimSpace(req.Feedback) == "" {
		return reject(signals.ErrorTypeInvalidInput, "feedback is required to refine the options")
	}
	return tooLong("feedback", req.Feedback)
}

// refine generates a new revision of options from feedback and answers
// it. When it fails the previous options stay and the wait goes on.
func (r *run) refine(ctx workflow.Context, req signals.RefinePlanRequest) (signals.OptionsView, error) {
	r.sel.refining = true
	r.st.Options.Feedback = append(r.st.Options.Feedback, req.Feedback)
	r.publish(ctx)
	err := r.generate(ctx, req.Feedback, r.st.Options.Options)
	r.sel.refining = false
	r.publish(ctx)
	if err != nil {
		return signals.OptionsView{}, fmt.Errorf("refine: %w", err)
	}
	return r.optionsView(), nil
}

// selectedOption returns the selected option.
func (r *run) selectedOption() (plan.Option, bool) {
	return r.optionByID(r.st.Options.SelectedID)
}

// optionByID returns the current option with id.
func (r *run) optionByID(id string) (plan.Option, bool) {
	for _, o := range r.st.Options.Options {
		if o.ID == id {
			return o, true
		}
	}
	return plan.Option{}, false
}

// validateAwaitOptions refuses once the run has passed selection: there
// are no options to wait for any more.
func (r *run) validateAwaitOptions(signals.AwaitOptionsRequest) error {
	if r.st.Plan != nil || r.finishing() || (r.st.Options.SelectedID != "" && !r.sel.waiting) {
		return reject(signals.ErrorTypeWrongPhase, "the run has passed selection (phase %s)", r.st.Phase)
	}
	return nil
}

// awaitOptions answers the options once they exist and no refine is
// running. It fails when the run ends without options (a direct answer, no
// valid option).
func (r *run) awaitOptions(ctx workflow.Context, _ signals.AwaitOptionsRequest) (signals.OptionsView, error) {
	ready := func() bool { return (r.st.Options.Revision > 0 && !r.sel.refining) || r.finishing() }
	if err := workflow.Await(ctx, ready); err != nil {
		return signals.OptionsView{}, err
	}
	if r.st.Options.Revision == 0 {
		return signals.OptionsView{}, fmt.Errorf("the run ended without options (phase %s)", r.st.Phase)
	}
	return r.optionsView(), nil
}
