package workflows

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/planmode/planmode/plan"
	"github.com/planmode/planmode/signals"
)

// selectedNotWoken is the state a server can show the validators: an
// earlier input of the same workflow task selected an option, and the
// selection phase has not woken yet to stop waiting. The test environment
// runs the workflow between every two inputs, so only this state shows
// the race.
func selectedNotWoken() *run {
	r := wire(&run{
		st: signals.CycleState{
			Phase: plan.PhaseAwaitingSelection,
			Options: signals.OptionsView{
				Revision: 1,
				Options: []plan.Option{
					{ID: "r1-o1", Rank: 1, Recommended: true},
					{ID: "r1-o2", Rank: 2},
				},
				SelectedID: "r1-o1",
			},
		},
	})
	r.sel.waiting = true
	return r
}

func TestInputsAfterASelectionInTheSameTaskAreRejected(t *testing.T) {
	cases := []struct {
		name     string
		validate func(r *run) error
	}{
		{"second select by rank", func(r *run) error { return r.sel.validateSelect(signals.SelectOptionRequest{Rank: 2}) }},
		{"second select by id", func(r *run) error { return r.sel.validateSelect(signals.SelectOptionRequest{OptionID: "r1-o1"}) }},
		{"refine", func(r *run) error { return r.sel.validateRefine(signals.RefinePlanRequest{Feedback: "cheaper"}) }},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := selectedNotWoken()
			err := tc.validate(r)
			require.Equal(t, signals.ErrorTypeWrongPhase, signals.RejectionType(err), err)
			assert.Contains(t, err.Error(), `option "r1-o1" is already selected`)
			assert.Equal(t, "r1-o1", r.st.Options.SelectedID, "the answered selection stands")
		})
	}
}

func TestSelectionValidatorsStillAcceptBeforeASelection(t *testing.T) {
	r := selectedNotWoken()
	r.st.Options.SelectedID = ""
	assert.NoError(t, r.sel.validateSelect(signals.SelectOptionRequest{Rank: 2}))
	assert.NoError(t, r.sel.validateRefine(signals.RefinePlanRequest{Feedback: "cheaper"}))
}

func TestSecondConfirmationOfASkipSaysItIsAnswered(t *testing.T) {
	r := wire(&run{})
	r.exec.skips.answer("skip-1", skipAnswer{approve: true})
	r.exec.st.SkipConfirmations = []signals.SkipConfirmation{{RequestID: "skip-1"}, {RequestID: "skip-2"}}
	err := r.exec.skips.validateConfirm(signals.ConfirmSkipRequest{RequestID: "skip-1", Approve: false})
	require.Equal(t, signals.ErrorTypeWrongPhase, signals.RejectionType(err), err)
	assert.Contains(t, err.Error(), `skip request "skip-1" is already answered (approved)`)
	assert.True(t, r.exec.skips.answers["skip-1"].approve, "the first answer stands")

	err = r.exec.skips.validateConfirm(signals.ConfirmSkipRequest{RequestID: "skip-9"})
	require.Equal(t, signals.ErrorTypeUnknownRequest, signals.RejectionType(err), err)
	assert.Contains(t, err.Error(), `unknown skip request "skip-9" (pending: skip-2)`, "only unanswered requests are listed")
}
