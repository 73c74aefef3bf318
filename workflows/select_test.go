package workflows

import (
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/planmode/planmode/activities"
	"github.com/planmode/planmode/plan"
	"github.com/planmode/planmode/signals"
)

func TestOptionIDsAreDeterministic(t *testing.T) {
	h := newHarness(t)
	var opts signals.OptionsView
	h.at(time.Minute, func() {
		opts = query(h, signals.OptionsQuery)
		signal(h, signals.SelectOption, signals.SelectOptionRequest{OptionID: "r1-o2"})
	})
	res := h.run(manualReq())

	require.Len(t, opts.Options, 2)
	byID := map[string]plan.Option{}
	for _, o := range opts.Options {
		byID[o.ID] = o
	}
	require.Contains(t, byID, "r1-o1")
	require.Contains(t, byID, "r1-o2")
	assert.Equal(t, "default-test-workflow-id-r1-o1", byID["r1-o1"].Plan.ID)
	assert.Equal(t, "Careful", byID["r1-o1"].Title)
	assert.Equal(t, "r1-o1", opts.RecommendedID, "the low-complexity, confident option ranks first")
	assert.Equal(t, 1, byID["r1-o1"].Rank)
	assert.Equal(t, "r1-o2", res.SelectedOptionID)
	assert.Equal(t, "Quick", res.Plan.Title)
}

func TestSelectBySignalStoresFeedback(t *testing.T) {
	h := newHarness(t)
	var pending signals.Pending
	var prog signals.Progress
	h.at(time.Minute, func() {
		pending = query(h, signals.PendingQuery)
		prog = query(h, signals.ProgressQuery)
		signal(h, signals.SelectOption, signals.SelectOptionRequest{OptionID: "r1-o1", Feedback: "keep it small"})
	})
	res := h.run(manualReq())

	assert.Equal(t, signals.AwaitingSelection, pending.Awaiting)
	require.NotNil(t, pending.Selection)
	assert.Equal(t, []string{"r1-o1", "r1-o2"}, pending.Selection.OptionIDs)
	assert.Nil(t, pending.Selection.Deadline, "no timeout, no deadline")
	assert.Equal(t, plan.PhaseAwaitingSelection, prog.Phase)
	assert.Equal(t, plan.ModePlan, prog.Mode)

	assert.Equal(t, signals.StatusCompleted, res.Status)
	assert.Equal(t, "r1-o1", res.SelectedOptionID)
	opts := query(h, signals.OptionsQuery)
	assert.Equal(t, []string{"keep it small"}, opts.Feedback)
	assert.Equal(t, "r1-o1", opts.SelectedID)
}

func TestSelectByUpdateRankAnswersTheOption(t *testing.T) {
	h := newHarness(t)
	var sel *outcome[signals.SelectOptionResponse]
	h.at(time.Minute, func() { sel = update(h, signals.SelectOption, signals.SelectOptionRequest{Rank: 2}) })
	res := h.run(manualReq())

	got := requireAccepted(t, sel)
	assert.Equal(t, "r1-o2", got.Option.ID)
	assert.Equal(t, 2, got.Option.Rank)
	assert.Equal(t, "r1-o2", res.SelectedOptionID)
}

func TestSelectUpdateRejections(t *testing.T) {
	cases := []struct {
		name string
		req  signals.SelectOptionRequest
		want string
	}{
		{"unknown option", signals.SelectOptionRequest{OptionID: "r9-o9"}, `unknown option "r9-o9"`},
		{"rank out of range", signals.SelectOptionRequest{Rank: 7}, "no option has rank 7"},
		{"neither id nor rank", signals.SelectOptionRequest{Feedback: "hm"}, "optionId or rank is required"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			h := newHarness(t)
			var bad *outcome[signals.SelectOptionResponse]
			var afterBad signals.OptionsView
			h.at(time.Minute, func() { bad = update(h, signals.SelectOption, tc.req) })
			h.at(2*time.Minute, func() {
				afterBad = query(h, signals.OptionsQuery)
				signal(h, signals.SelectOption, signals.SelectOptionRequest{Rank: 1})
			})
			res := h.run(manualReq())

			requireRejected(t, bad, tc.want)
			assert.True(t, errors.Is(bad.rejected, signals.ErrRejected) || assert.Contains(t, bad.rejected.Error(), "rejected"))
			assert.Empty(t, afterBad.SelectedID, "a rejected selection changes nothing")
			assert.Equal(t, signals.StatusCompleted, res.Status)
		})
	}
}

func TestSelectRejectedInWrongPhase(t *testing.T) {
	h := newHarness(t)
	var late *outcome[signals.SelectOptionResponse]
	// Auto selection: by 90s the run is executing step 2.
	h.at(90*time.Second, func() { late = update(h, signals.SelectOption, signals.SelectOptionRequest{Rank: 2}) })
	res := h.run(autoReq())

	requireRejected(t, late, "not awaiting a selection (phase executing)")
	assert.Equal(t, "r1-o1", res.SelectedOptionID)
}

func TestBadSelectSignalsAreRecordedNotFatal(t *testing.T) {
	h := newHarness(t)
	var pending signals.Pending
	h.at(time.Minute, func() {
		h.env.SignalWorkflow(signals.SelectOption.Name, map[string]any{"option": "r1-o1"})
		h.env.SignalWorkflow(signals.SelectOption.Name, "not an object")
		signal(h, signals.SelectOption, signals.SelectOptionRequest{OptionID: "nope"})
	})
	h.at(2*time.Minute, func() {
		pending = query(h, signals.PendingQuery)
		signal(h, signals.SelectOption, signals.SelectOptionRequest{Rank: 1})
	})
	res := h.run(manualReq())

	require.Len(t, pending.Rejected, 3)
	assert.Equal(t, []string{"select-option", "select-option", "select-option"}, rejectedNames(pending))
	assert.Contains(t, pending.Rejected[0].Reason, "unknown field")
	assert.Contains(t, pending.Rejected[0].Payload, `"option"`)
	assert.Contains(t, pending.Rejected[1].Reason, "bad payload")
	assert.Contains(t, pending.Rejected[2].Reason, `unknown option "nope"`)
	assert.Equal(t, signals.AwaitingSelection, pending.Awaiting, "still waiting after bad input")
	assert.Equal(t, signals.StatusCompleted, res.Status)
}

func TestRejectedInputsAreBounded(t *testing.T) {
	h := newHarness(t)
	h.at(time.Minute, func() {
		for i := 0; i < maxRejected+5; i++ {
			signal(h, signals.SelectOption, signals.SelectOptionRequest{OptionID: fmt.Sprintf("bad-%d", i)})
		}
	})
	h.selectAt(2 * time.Minute)
	h.run(manualReq())

	pending := query(h, signals.PendingQuery)
	require.Len(t, pending.Rejected, maxRejected)
	assert.Contains(t, pending.Rejected[0].Reason, `"bad-5"`, "the oldest are dropped")
	assert.Contains(t, pending.Rejected[maxRejected-1].Reason, fmt.Sprintf(`"bad-%d"`, maxRejected+4))
}

func TestSelectionTimeout(t *testing.T) {
	cases := []struct {
		outcome    signals.TimeoutOutcome
		wantStatus signals.Status
	}{
		{signals.OnTimeoutRecommended, signals.StatusCompleted},
		{signals.OnTimeoutCancel, signals.StatusCancelled},
	}
	for _, tc := range cases {
		t.Run(string(tc.outcome), func(t *testing.T) {
			h := newHarness(t)
			req := manualReq()
			req.Selection = signals.SelectionPolicy{Mode: signals.SelectManual, Timeout: plan.Duration(time.Hour), OnTimeout: tc.outcome}
			var pending signals.Pending
			h.at(time.Minute, func() { pending = query(h, signals.PendingQuery) })
			start := h.env.Now()
			res := h.run(req)

			require.NotNil(t, pending.Selection)
			require.NotNil(t, pending.Selection.Deadline)
			assert.True(t, start.Add(time.Hour).Equal(*pending.Selection.Deadline), "deadline %v", pending.Selection.Deadline)
			assert.Equal(t, tc.wantStatus, res.Status)
			if tc.outcome == signals.OnTimeoutCancel {
				assert.Contains(t, res.Error, "no option selected within 1h0m0s")
				assert.Equal(t, "summary: cancelled", res.Summary)
				assert.Nil(t, res.Plan)
				assert.Zero(t, h.f.count("ExecuteLLMStep"))
				return
			}
			assert.Equal(t, "r1-o1", res.SelectedOptionID)
			assert.Contains(t, query(h, signals.OptionsQuery).Feedback[0], "selection timed out")
		})
	}
}

func TestRefineByUpdateThenSelectNewRevision(t *testing.T) {
	h := newHarness(t)
	h.f.options = func(in activities.OptionsInput) (activities.OptionsOutput, error) {
		title := fmt.Sprintf("Rev %d", in.Revision)
		return activities.OptionsOutput{Options: []plan.Option{option(title, plan.ComplexityLow, 0.9, llmSteps(2)...)}}, nil
	}
	var refined *outcome[signals.OptionsView]
	h.at(time.Minute, func() { refined = update(h, signals.RefinePlan, signals.RefinePlanRequest{Feedback: "use sessions"}) })
	h.at(2*time.Minute, func() { signal(h, signals.RefinePlan, signals.RefinePlanRequest{Feedback: "no, tokens after all"}) })
	h.at(3*time.Minute, func() { signal(h, signals.SelectOption, signals.SelectOptionRequest{OptionID: "r3-o1"}) })
	res := h.run(manualReq())

	view := requireAccepted(t, refined)
	assert.Equal(t, 2, view.Revision)
	require.Len(t, view.Options, 1)
	assert.Equal(t, "r2-o1", view.Options[0].ID)
	assert.Equal(t, "Rev 2", view.Options[0].Title)

	assert.Equal(t, "r3-o1", res.SelectedOptionID)
	assert.Equal(t, "Rev 3", res.Plan.Title)
	h.f.mu.Lock()
	defer h.f.mu.Unlock()
	require.Len(t, h.f.optionsIn, 3)
	assert.Equal(t, "use sessions", h.f.optionsIn[1].Feedback)
	require.Len(t, h.f.optionsIn[1].Previous, 1)
	assert.Equal(t, "r1-o1", h.f.optionsIn[1].Previous[0].ID)
	assert.Equal(t, "no, tokens after all", h.f.optionsIn[2].Feedback)
	assert.Equal(t, []string{"use sessions", "no, tokens after all"}, query(h, signals.OptionsQuery).Feedback)
}

func TestRefineRejections(t *testing.T) {
	h := newHarness(t)
	var empty, late *outcome[signals.OptionsView]
	h.at(time.Minute, func() { empty = update(h, signals.RefinePlan, signals.RefinePlanRequest{Feedback: "  "}) })
	h.selectAt(2 * time.Minute)
	h.at(150*time.Second, func() { late = update(h, signals.RefinePlan, signals.RefinePlanRequest{Feedback: "more"}) })
	res := h.run(manualReq())

	requireRejected(t, empty, "feedback is required")
	requireRejected(t, late, "not awaiting a selection")
	assert.Equal(t, 1, h.f.count("GenerateOptions"))
	assert.Equal(t, signals.StatusCompleted, res.Status)
}

func TestFailedRefineKeepsOptions(t *testing.T) {
	h := newHarness(t)
	calls := 0
	base := h.f.options
	h.f.options = func(in activities.OptionsInput) (activities.OptionsOutput, error) {
		calls++
		if in.Revision > 1 {
			return activities.OptionsOutput{Options: []plan.Option{option("Empty", plan.ComplexityLow, 1)}}, nil
		}
		return base(in)
	}
	var refined *outcome[signals.OptionsView]
	h.at(time.Minute, func() { refined = update(h, signals.RefinePlan, signals.RefinePlanRequest{Feedback: "again"}) })
	h.selectAt(2 * time.Minute)
	res := h.run(manualReq())

	require.True(t, refined.done)
	require.Error(t, refined.err)
	assert.Contains(t, refined.err.Error(), "no valid option")
	assert.Equal(t, 3, calls, "first generation, refine, one retry of the invalid option")
	assert.Equal(t, 1, query(h, signals.OptionsQuery).Revision, "the previous options stay")
	assert.Equal(t, "r1-o1", res.SelectedOptionID)
}
