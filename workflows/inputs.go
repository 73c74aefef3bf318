package workflows

import (
	"fmt"
	"strconv"
	"strings"

	"go.temporal.io/sdk/workflow"

	"github.com/planmode/planmode/plan"
	"github.com/planmode/planmode/signals"
	"github.com/planmode/planmode/view"
)

// The inputs of the phases before execution: answer-clarification,
// select-option, refine-plan and await-options, each a validator that only
// reads and a handler that asks the cycle to apply it.

// validateAnswers accepts answers only while questions are pending and
// only for questions that were asked.
func (c *controls) validateAnswers(req signals.AnswerClarificationRequest) error {
	q := c.r.clarify
	if !q.Waiting {
		return reject(signals.ErrorTypeWrongPhase, "no clarification is pending (phase %s)", c.r.st.Phase)
	}
	if len(req.Answers) == 0 {
		return reject(signals.ErrorTypeInvalidInput, "answers are empty")
	}
	for _, k := range workflow.DeterministicKeys(req.Answers) {
		if questionFor(q, k) == "" {
			return reject(signals.ErrorTypeInvalidInput, "unknown question %q: answer by question text or number (1..%d)", k, len(q.Questions))
		}
		if err := tooLong(fmt.Sprintf("answer to %q", k), req.Answers[k]); err != nil {
			return err
		}
	}
	return nil
}

// answer stores answers and reports the questions still open.
func (c *controls) answer(ctx workflow.Context, req signals.AnswerClarificationRequest) (signals.ClarificationResponse, error) {
	remaining := c.r.takeAnswers(ctx, req.Answers)
	return signals.ClarificationResponse{Accepted: len(req.Answers), Remaining: remaining}, nil
}

// questionFor maps an answer's key to its question in q: the question's
// text or its 1-based number. It returns "" for a key that matches
// neither.
func questionFor(q view.Clarification, key string) string {
	for i, text := range q.Questions {
		if key == text || key == strconv.Itoa(i+1) {
			return text
		}
	}
	return ""
}

// validateSelect accepts a selection only while one is awaited.
func (c *controls) validateSelect(req signals.SelectOptionRequest) error {
	if err := c.awaitingSelection(); err != nil {
		return err
	}
	if err := tooLong("feedback", req.Feedback); err != nil {
		return err
	}
	_, err := findOption(c.r.view(), req)
	return err
}

// awaitingSelection says why selection inputs are refused, if they are.
// Several inputs can arrive in one workflow task: once one of them selected
// an option, the others are refused even though the selection phase has not
// woken yet to stop waiting, so the option a caller was answered with is
// the one that runs and no refine replaces the options under it.
func (c *controls) awaitingSelection() error {
	r := c.r
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
func (c *controls) selectOption(ctx workflow.Context, req signals.SelectOptionRequest) (signals.SelectOptionResponse, error) {
	o, err := findOption(c.r.view(), req)
	if err != nil {
		return signals.SelectOptionResponse{}, err
	}
	c.r.choose(ctx, o, req.Feedback)
	return signals.SelectOptionResponse{Option: o}, nil
}

// findOption resolves a selection request to one of v's options.
func findOption(v view.Run, req signals.SelectOptionRequest) (plan.Option, error) {
	opts := v.State.Options
	if req.OptionID != "" {
		if o, ok := optionByID(opts, req.OptionID); ok {
			return o, nil
		}
		return plan.Option{}, reject(signals.ErrorTypeUnknownOption, "unknown option %q (options: %s)", req.OptionID, strings.Join(view.OptionIDs(v), ", "))
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

// validateRefine accepts a refine only while a selection is awaited.
func (c *controls) validateRefine(req signals.RefinePlanRequest) error {
	if err := c.awaitingSelection(); err != nil {
		return err
	}
	if strings.TrimSpace(req.Feedback) == "" {
		return reject(signals.ErrorTypeInvalidInput, "feedback is required to refine the options")
	}
	return tooLong("feedback", req.Feedback)
}

// refine generates a new revision of options from feedback and answers
// it. When it fails the previous options stay and the wait goes on.
func (c *controls) refine(ctx workflow.Context, req signals.RefinePlanRequest) (signals.OptionsView, error) {
	if err := c.r.refine(ctx, req.Feedback); err != nil {
		return signals.OptionsView{}, fmt.Errorf("refine: %w", err)
	}
	return c.r.st.Options, nil
}

// validateAwaitOptions refuses once the run has passed selection: there
// are no options to wait for any more.
func (c *controls) validateAwaitOptions(signals.AwaitOptionsRequest) error {
	r := c.r
	if r.exec.plan() != nil || c.finishing() || (r.st.Options.SelectedID != "" && !r.sel.waiting) {
		return reject(signals.ErrorTypeWrongPhase, "the run has passed selection (phase %s)", r.st.Phase)
	}
	return nil
}

// awaitOptions answers the options once they exist and no refine is
// running. It fails when the run ends without options (a direct answer, no
// valid option).
func (c *controls) awaitOptions(ctx workflow.Context, _ signals.AwaitOptionsRequest) (signals.OptionsView, error) {
	r := c.r
	ready := func() bool { return (r.st.Options.Revision > 0 && !r.sel.refining) || c.finishing() }
	if err := workflow.Await(ctx, ready); err != nil {
		return signals.OptionsView{}, err
	}
	if r.st.Options.Revision == 0 {
		return signals.OptionsView{}, fmt.Errorf("the run ended without options (phase %s)", r.st.Phase)
	}
	return r.st.Options, nil
}
