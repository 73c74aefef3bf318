package signals

import (
	"reflect"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/planmode/planmode/plan"
)

func TestCheckpointValidation(t *testing.T) {
	cases := []struct {
		name string
		cp   *Checkpoint
		want string
	}{
		{"none", nil, ""},
		{"with a plan", &Checkpoint{Runs: 1, Plan: &plan.Plan{ID: "p"}}, ""},
		{"without a plan", &Checkpoint{Runs: 1}, "checkpoint carries no plan"},
		{"awaiting a selection", &Checkpoint{Runs: 1, Phase: plan.PhaseAwaitingSelection,
			Options: OptionsView{Options: []plan.Option{{ID: "r1-o1"}}}}, ""},
		{"awaiting a selection without options", &Checkpoint{Runs: 1, Phase: plan.PhaseAwaitingSelection},
			"checkpoint carries no plan"},
		{"awaiting a selection made", &Checkpoint{Runs: 1, Phase: plan.PhaseAwaitingSelection,
			Options: OptionsView{Options: []plan.Option{{ID: "r1-o1"}}, SelectedID: "r1-o1"}}, "checkpoint carries no plan"},
		{"awaiting the workspace", &Checkpoint{Runs: 1, Phase: plan.PhaseAwaitingWorkspace}, ""},
		{"awaiting a workspace it holds", &Checkpoint{Runs: 1, Phase: plan.PhaseAwaitingWorkspace,
			Lease: &WorkspaceLease{Key: "a"}}, "checkpoint carries no plan"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			err := StartRequest{Goal: "Fix the cart", Checkpoint: tc.cp}.Validate()
			if tc.want == "" {
				assert.NoError(t, err)
				return
			}
			require.Error(t, err)
			assert.Contains(t, err.Error(), tc.want)
		})
	}
}

// TestCheckpointJSONTags pins the checkpoint's JSON: recorded histories
// and running workflows carry it, so a renamed tag would lose their state.
// A new field is fine; add its tag here.
func TestCheckpointJSONTags(t *testing.T) {
	want := []string{
		"runs", "startedAt", "phase", "goal", "options", "plan,omitempty", "snapshotId,omitempty", "manifest,omitempty", "forkedFrom,omitempty",
		"usage", "offline,omitempty", "lastError,omitempty", "skipConfirmations,omitempty",
		"skipSeq,omitempty", "rejected,omitempty", "paused,omitempty", "pauseReason,omitempty",
		"approvals,omitempty", "approvalSeq,omitempty", "approvalDecisions,omitempty",
		"approvalDecisionsDropped,omitempty", "tools,omitempty", "budget,omitempty",
		"budgetWaived,omitempty", "notifySeq,omitempty", "noReceiver,omitempty", "pausedFor,omitempty",
		"pausedAt,omitempty", "maxConcurrent,omitempty", "lease,omitempty",
	}
	typ := reflect.TypeOf(Checkpoint{})
	got := make([]string, 0, typ.NumField())
	for i := range typ.NumField() {
		got = append(got, typ.Field(i).Tag.Get("json"))
	}
	assert.Equal(t, want, got)
}
