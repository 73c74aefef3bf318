package signals

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/planmode/planmode/plan"
)

func TestPayloadsCheckThemselves(t *testing.T) {
	long := strings.Repeat("x", MaxTextBytes+1)
	answers := map[string]string{}
	for i := range MaxAnswers + 1 {
		answers[fmt.Sprint(i+1)] = "yes"
	}
	remove := plan.Edit{Op: plan.OpRemove, StepID: "s2"}
	cases := []struct {
		name    string
		payload interface{ Validate() error }
		wantErr string
	}{
		{"select by id", SelectOptionRequest{OptionID: "r1-o1"}, ""},
		{"select by rank", SelectOptionRequest{Rank: 2, Feedback: "ok"}, ""},
		{"select by both", SelectOptionRequest{OptionID: "r1-o1", Rank: 2}, `optionId "r1-o1" and rank 2 are both given: give one`},
		{"select feedback", SelectOptionRequest{Rank: 1, Feedback: long}, "feedback is 4097 bytes: at most 4096 bytes"},
		{"refine feedback", RefinePlanRequest{Feedback: long}, "feedback is 4097 bytes"},
		{"answers", AnswerClarificationRequest{Answers: map[string]string{"1": "Go"}}, ""},
		{"too many answers", AnswerClarificationRequest{Answers: answers}, "answers has 21 entries: at most 20"},
		{"long question", AnswerClarificationRequest{Answers: map[string]string{long: "a"}}, "question is 4097 bytes"},
		{"long answer", AnswerClarificationRequest{Answers: map[string]string{"1": long}}, `answer to "1" is 4097 bytes`},
		{"note", ConfirmSkipRequest{RequestID: "skip-1", Note: long}, "note is 4097 bytes"},
		{"reason", ControlRequest{Reason: long}, "reason is 4097 bytes"},
		{"edit", EditPlanRequest{Edits: []plan.Edit{remove}}, ""},
		{"edit reason", EditPlanRequest{Edits: []plan.Edit{remove}, Reason: long}, "reason is 4097 bytes"},
		{"too many edits", EditPlanRequest{Edits: make([]plan.Edit, MaxEdits+1)}, "edits has 51 entries: at most 50"},
		{"edits too large", EditPlanRequest{Edits: []plan.Edit{{Op: plan.OpAppend,
			Step: &plan.Step{Title: "big", Description: strings.Repeat("d", MaxEditBytes)}}}}, "at most 65536 bytes"},
		{"contradictory edits", EditPlanRequest{Edits: []plan.Edit{remove, {Op: plan.OpAppend, StepID: "s1", Step: &plan.Step{}}, {Op: "zap"}}},
			`edit 2: INVALID_EDIT: step "s1": append takes no stepId`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.payload.Validate()
			if tc.wantErr == "" {
				assert.NoError(t, err)
				return
			}
			assert.ErrorContains(t, err, tc.wantErr)
		})
	}
}
