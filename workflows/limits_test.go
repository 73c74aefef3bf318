package workflows

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/planmode/planmode/plan"
	"github.com/planmode/planmode/signals"
	"github.com/planmode/planmode/view"
)

// openRun is a run that accepts every kind of input: a selection and a
// clarification are awaited, a skip confirmation is pending and a plan is
// selected and paused.
func openRun() *run {
	r := selectedNotWoken()
	r.st.Options.SelectedID = ""
	r.clar.q = view.Clarification{Questions: []string{"Which database?"}, Answers: map[string]string{}, Waiting: true}
	p := option("Only", plan.ComplexityLow, 0.9, llmSteps(2)...).Plan
	p.ID = "p"
	r.exec.st.Plan = &p
	r.exec.st.SkipConfirmations = []signals.SkipConfirmation{{RequestID: "skip-1", StepIDs: []string{"s2"}}}
	r.ctl.st.Paused = true
	return r
}

func TestOversizedInputsAreRejected(t *testing.T) {
	long := strings.Repeat("x", signals.MaxTextBytes+1)
	fits := strings.Repeat("x", signals.MaxTextBytes)
	bigStep := llmStep("s9", "s2")
	bigStep.Description = strings.Repeat("y", signals.MaxEditBytes)
	cases := []struct {
		name     string
		validate func(r *run, text string) error
		want     string
	}{
		{"select feedback", func(r *run, s string) error {
			return r.sel.validateSelect(signals.SelectOptionRequest{Rank: 1, Feedback: s})
		}, "feedback"},
		{"refine feedback", func(r *run, s string) error {
			return r.sel.validateRefine(signals.RefinePlanRequest{Feedback: s})
		}, "feedback"},
		{"clarification answer", func(r *run, s string) error {
			return r.clar.validateAnswers(signals.AnswerClarificationRequest{Answers: map[string]string{"1": s}})
		}, `answer to "1"`},
		{"confirm-skip note", func(r *run, s string) error {
			return r.exec.skips.validateConfirm(signals.ConfirmSkipRequest{RequestID: "skip-1", Approve: true, Note: s})
		}, "note"},
		{"resume reason", func(r *run, s string) error {
			return r.ctl.validateResume(signals.ControlRequest{Reason: s})
		}, "reason"},
		{"pause reason", func(r *run, s string) error {
			r.ctl.st.Paused = false
			return r.ctl.validatePause(signals.ControlRequest{Reason: s})
		}, "reason"},
		{"edit reason", func(r *run, s string) error {
			return r.exec.validateEdit(nil, signals.EditPlanRequest{Reason: s, Edits: []plan.Edit{{Op: plan.OpRemove, StepID: "s2"}}})
		}, "reason"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			require.NoError(t, tc.validate(openRun(), fits), "a text of exactly the bound is accepted")
			err := tc.validate(openRun(), long)
			require.Equal(t, signals.ErrorTypeTooLarge, signals.RejectionType(err), err)
			assert.Contains(t, err.Error(), tc.want)
			assert.Contains(t, err.Error(), "at most 4096 bytes")
		})
	}
	t.Run("edits", func(t *testing.T) {
		err := openRun().exec.validateEdit(nil, signals.EditPlanRequest{Edits: []plan.Edit{{Op: plan.OpAppend, Step: &bigStep}}})
		require.Equal(t, signals.ErrorTypeTooLarge, signals.RejectionType(err), err)
		assert.Contains(t, err.Error(), "at most 65536 bytes")
	})
}

func TestRejectionReasonsAreBounded(t *testing.T) {
	h := newHarness(t)
	huge := strings.Repeat("z", 100<<10)
	h.at(time.Minute, func() {
		signal(h, signals.SelectOption, signals.SelectOptionRequest{OptionID: huge})
	})
	h.selectAt(2 * time.Minute)
	h.run(manualReq())

	pending := query(h, signals.PendingQuery)
	require.Len(t, pending.Rejected, 1)
	assert.Contains(t, pending.Rejected[0].Reason, "unknown option")
	assert.LessOrEqual(t, len(pending.Rejected[0].Reason), maxRejectedReason+len("…"))
	assert.LessOrEqual(t, len(pending.Rejected[0].Payload), maxRejectedPayload+len("…"))
}
