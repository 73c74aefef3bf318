package workflows

import (
	"fmt"
	"strings"
	"time"

	"go.temporal.io/sdk/workflow"

	"github.com/planmode/planmode/activities"
	"github.com/planmode/planmode/plan"
	"github.com/planmode/planmode/signals"
	"github.com/planmode/planmode/view"
)

// selection is the cycle's options and the wait for a person to choose
// one: it generates the options (options.go), waits for a selection
// (select.go) and answers select-option, refine-plan and await-options.
// It alone writes the options (opts, the cycle's Options), and keeps
// whether it waits for a selection and whether a refine runs.
type selection struct {
	opts *signals.OptionsView
	// policy and ranking are the request's; workflowID names the
	// options' plans.
	policy     signals.SelectionPolicy
	ranking    []plan.Criterion
	workflowID string
	run        selectionRun
	log        eventLog
	chain      continuer

	waiting  bool
	refining bool
	// notified is the revision whose options a webhook announced.
	notified int
	// deadline is the selection deadline a continuation keeps waiting
	// for, in place of a full timeout, until a refine restarts it.
	deadline *time.Time
}

// selectionRun is what the selection asks of the run: to report and to
// move to a phase, the run as the pending query shows it, its phase,
// whether a plan was taken, what an options request starts from, and
// the limits plans keep.
type selectionRun interface {
	reporter
	phaser
	view() view.Run
	phase() plan.Phase
	planned() bool
	optionsInput() activities.OptionsInput
	limits() plan.Limits
}

// resume goes on waiting in a run started by continue-as-new: the options
// were announced, and the selection deadline stays.
func (s *selection) resume() {
	s.notified = s.opts.Revision
	s.deadline = s.opts.SelectionTimeout
}

// chosen records in the log that by selected the selected option, and
// why.
func (s *selection) chosen(ctx workflow.Context, by plan.Actor, reason string) {
	o, _ := s.selected()
	s.log.record(ctx, signals.EventOptionSelected, nil, fmt.Sprintf("option %s selected by %s: %s", o.ID, by, o.Title),
		optionSelected{OptionID: o.ID, Title: o.Title, By: string(by), Reason: reason})
}

// selected returns the option selected.
func (s *selection) selected() (plan.Option, bool) {
	return optionByID(*s.opts, s.opts.SelectedID)
}

// adopt makes o, a plan handed in with the request, revision 1's only
// option, recommended and selected, and announces it.
func (s *selection) adopt(ctx workflow.Context, o plan.Option) error {
	ranked, err := plan.RankBy([]plan.Option{o}, s.ranking)
	if err != nil {
		return fmt.Errorf("external plan: %w", err)
	}
	s.opts.Revision = 1
	s.opts.Options = ranked
	s.opts.Comparison = plan.CompareBy(ranked, s.ranking)
	s.opts.RecommendedID = o.ID
	s.opts.SelectedID = o.ID
	s.log.record(ctx, signals.EventPlanCreated, nil, fmt.Sprintf("external plan with %d step(s), run at once", len(o.Plan.Steps)),
		map[string]int{"steps": len(o.Plan.Steps)})
	return nil
}

// validateSelect accepts a selection only while one is awaited.
func (s *selection) validateSelect(req signals.SelectOptionRequest) error {
	if err := s.awaitingSelection(); err != nil {
		return err
	}
	if err := tooLong("feedback", req.Feedback); err != nil {
		return err
	}
	_, err := findOption(*s.opts, req)
	return err
}

// awaitingSelection says why selection inputs are refused, if they are.
// Several inputs can arrive in one workflow task: once one of them selected
// an option, the others are refused even though the selection phase has not
// woken yet to stop waiting, so the option a caller was answered with is
// the one that runs and no refine replaces the options under it.
func (s *selection) awaitingSelection() error {
	switch {
	case !s.waiting:
		return reject(signals.ErrorTypeWrongPhase, "not awaiting a selection (phase %s)", s.run.phase())
	case s.opts.SelectedID != "":
		return reject(signals.ErrorTypeWrongPhase, "option %q is already selected", s.opts.SelectedID)
	case s.refining:
		return reject(signals.ErrorTypeBusy, "options are being refined: wait for the new options")
	}
	return nil
}

// selectOption records the selection and the caller's feedback.
func (s *selection) selectOption(ctx workflow.Context, req signals.SelectOptionRequest) (signals.SelectOptionResponse, error) {
	o, err := findOption(*s.opts, req)
	if err != nil {
		return signals.SelectOptionResponse{}, err
	}
	s.opts.SelectedID = o.ID
	if fb := strings.TrimSpace(req.Feedback); fb != "" {
		s.opts.Feedback = append(s.opts.Feedback, fb)
	}
	s.run.publish(ctx)
	s.chosen(ctx, signals.Caller(req.By), strings.TrimSpace(req.Feedback))
	return signals.SelectOptionResponse{Option: o}, nil
}

// validateRefine accepts a refine only while a selection is awaited.
func (s *selection) validateRefine(req signals.RefinePlanRequest) error {
	if err := s.awaitingSelection(); err != nil {
		return err
	}
	if strings.TrimSpace(req.Feedback) == "" {
		return reject(signals.ErrorTypeInvalidInput, "feedback is required to refine the options")
	}
	return tooLong("feedback", req.Feedback)
}

// validateAwaitOptions refuses once the run has passed selection: there
// are no options to wait for any more.
func (s *selection) validateAwaitOptions(signals.AwaitOptionsRequest) error {
	ph := s.run.phase()
	if s.run.planned() || finishing(ph) || (s.opts.SelectedID != "" && !s.waiting) {
		return reject(signals.ErrorTypeWrongPhase, "the run has passed selection (phase %s)", ph)
	}
	return nil
}

// findOption resolves a selection request to one of opts.
func findOption(opts signals.OptionsView, req signals.SelectOptionRequest) (plan.Option, error) {
	if req.OptionID != "" {
		if o, ok := optionByID(opts, req.OptionID); ok {
			return o, nil
		}
		ids := make([]string, 0, len(opts.Options))
		for _, o := range opts.Options {
			ids = append(ids, o.ID)
		}
		return plan.Option{}, reject(signals.ErrorTypeUnknownOption, "unknown option %q (options: %s)", req.OptionID, strings.Join(ids, ", "))
	}
	if req.Rank == 0 {
		return plan.Option{}, reject(signals.ErrorTypeInvalidInput, "optionId or rank is required")
	}
	for _, o := range opts.Options {
		if o.Rank == req.Rank {
			return o, nil
		}
	}
	return plan.Option{}, reject(signals.ErrorTypeUnknownOption, "no option has rank %d (ranks 1..%d)", req.Rank, len(opts.Options))
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

// recommended returns the recommended option of opts, or the first one.
func recommended(opts signals.OptionsView) (plan.Option, bool) {
	for _, o := range opts.Options {
		if o.Recommended {
			return o, true
		}
	}
	if len(opts.Options) > 0 {
		return opts.Options[0], true
	}
	return plan.Option{}, false
}
