package workflows

import (
	"fmt"
	"strings"

	"go.temporal.io/sdk/workflow"

	"github.com/planmode/planmode/activities"
	"github.com/planmode/planmode/plan"
	"github.com/planmode/planmode/signals"
)

// generate asks for a new revision of options, validates them (asking once
// again for the invalid ones), ranks and compares the valid ones (by the
// request's ranking criteria when it has some), and stores them. On error
// the previous options stay as they were.
func (s *selection) generate(ctx workflow.Context, feedback string, previous []plan.Option) error {
	rev := s.opts.Revision + 1
	in := s.run.optionsInput()
	in.Revision, in.Feedback, in.Previous = rev, feedback, previous
	out, err := generateOptions(ctx, in, fmt.Sprintf("generate options r%d", rev))
	if err != nil {
		return fmt.Errorf("generate options: %w", err)
	}
	s.run.addUsage(ctx, activities.PhasePlan, out.Usage)
	seq := 0
	valid, invalid := s.vet(ctx, out.Options, rev, &seq, nil)
	var dropped []plan.DroppedOption
	if len(invalid) > 0 {
		more, stillInvalid, err := s.regenerate(ctx, in, invalid, rev, &seq, valid)
		if err != nil {
			return err
		}
		valid = append(valid, more...)
		dropped = append(markDropped(invalid, "invalid; asked once for a corrected option"), stillInvalid...)
	}
	if len(valid) == 0 {
		return fmt.Errorf("generate options: no valid option (%d dropped: %s)", len(dropped), dropReasons(dropped))
	}
	ranked, err := plan.RankBy(valid, s.ranking)
	if err != nil {
		return fmt.Errorf("generate options: %w", err)
	}
	s.opts.Revision = rev
	s.opts.Options = ranked
	s.opts.Comparison = plan.CompareBy(ranked, s.ranking)
	s.opts.Dropped = dropped
	s.opts.SelectedID = ""
	s.opts.RecommendedID = ""
	if o, ok := recommended(*s.opts); ok {
		s.opts.RecommendedID = o.ID
	}
	s.run.publish(ctx)
	s.log.record(ctx, signals.EventOptionsReady, nil, fmt.Sprintf("%d option(s), revision %d; recommended: %s", len(ranked), rev, s.opts.RecommendedID),
		optionsReady(s.opts))
	return nil
}

// regenerate asks once for corrections of the invalid options. A failed
// retry is not fatal: the invalid options are simply dropped, unless the
// run was cancelled.
func (s *selection) regenerate(ctx workflow.Context, in activities.OptionsInput, invalid []plan.DroppedOption, rev int, seq *int, taken []plan.Option) ([]plan.Option, []plan.DroppedOption, error) {
	in.Invalid = invalid
	in.Count = len(invalid)
	out, err := generateOptions(ctx, in, fmt.Sprintf("regenerate %d invalid options r%d", len(invalid), rev))
	if err != nil {
		if ctx.Err() != nil {
			return nil, nil, ctx.Err()
		}
		s.run.noteError(fmt.Sprintf("regenerate invalid options: %v", err))
		return nil, nil, nil
	}
	s.run.addUsage(ctx, activities.PhasePlan, out.Usage)
	valid, stillInvalid := s.vet(ctx, out.Options, rev, seq, taken)
	return valid, markDropped(stillInvalid, "still invalid after one retry"), nil
}

// vet gives each option and its plan a deterministic id when the activity
// left it empty (or reused one, taken included), then splits the options into valid ones
// and the reasons of the invalid ones.
func (s *selection) vet(ctx workflow.Context, opts []plan.Option, rev int, seq *int, taken []plan.Option) ([]plan.Option, []plan.DroppedOption) {
	var valid []plan.Option
	var invalid []plan.DroppedOption
	now := workflow.Now(ctx)
	lim := s.run.limits()
	for _, o := range opts {
		*seq++
		if o.ID == "" || idTaken(o.ID, taken) || idTaken(o.ID, valid) {
			o.ID = fmt.Sprintf("r%d-o%d", rev, *seq)
		}
		if o.Plan.ID == "" {
			o.Plan.ID = fmt.Sprintf("%s-r%d-o%d", s.workflowID, rev, *seq)
		}
		if o.Plan.TaskID == "" {
			o.Plan.TaskID = s.workflowID
		}
		if o.Plan.CreatedAt.IsZero() {
			o.Plan.CreatedAt = now
		}
		if o.Title == "" {
			o.Title = o.Plan.Title
		}
		res := plan.Validate(o.Plan, lim)
		if !res.Valid {
			invalid = append(invalid, plan.DroppedOption{Title: o.Title, Reason: "invalid plan", Issues: issueTexts(res.Errors)})
			continue
		}
		valid = append(valid, o)
	}
	return valid, invalid
}

// idTaken reports whether an option in opts already has id.
func idTaken(id string, opts []plan.Option) bool {
	for _, o := range opts {
		if o.ID == id {
			return true
		}
	}
	return false
}

// markDropped sets the reason of each dropped option, keeping its issues.
func markDropped(ds []plan.DroppedOption, reason string) []plan.DroppedOption {
	out := make([]plan.DroppedOption, len(ds))
	for i, d := range ds {
		d.Reason = reason
		out[i] = d
	}
	return out
}

// dropReasons renders dropped options for an error message.
func dropReasons(ds []plan.DroppedOption) string {
	parts := make([]string, 0, len(ds))
	for _, d := range ds {
		parts = append(parts, fmt.Sprintf("%q %s (%s)", d.Title, d.Reason, strings.Join(d.Issues, "; ")))
	}
	return strings.Join(parts, ", ")
}
