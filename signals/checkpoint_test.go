package signals

import (
	"bytes"
	"encoding/json"
	"reflect"
	"strings"
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
		{"with a plan", &Checkpoint{CycleState: CycleState{Runs: 1}, ExecutionState: ExecutionState{Plan: &plan.Plan{ID: "p"}}}, ""},
		{"without a plan", &Checkpoint{CycleState: CycleState{Runs: 1}}, "checkpoint carries no plan"},
		{"awaiting a selection", &Checkpoint{CycleState: CycleState{Runs: 1, Phase: plan.PhaseAwaitingSelection,
			Options: OptionsView{Options: []plan.Option{{ID: "r1-o1"}}}}}, ""},
		{"awaiting a selection without options", &Checkpoint{CycleState: CycleState{Runs: 1, Phase: plan.PhaseAwaitingSelection}},
			"checkpoint carries no plan"},
		{"awaiting a selection made", &Checkpoint{CycleState: CycleState{Runs: 1, Phase: plan.PhaseAwaitingSelection,
			Options: OptionsView{Options: []plan.Option{{ID: "r1-o1"}}, SelectedID: "r1-o1"}}}, "checkpoint carries no plan"},
		{"awaiting the workspace", &Checkpoint{CycleState: CycleState{Runs: 1, Phase: plan.PhaseAwaitingWorkspace}}, ""},
		{"awaiting a workspace it holds", &Checkpoint{CycleState: CycleState{Runs: 1, Phase: plan.PhaseAwaitingWorkspace},
			LeaseState: LeaseState{Lease: &WorkspaceLease{Key: "a"}}}, "checkpoint carries no plan"},
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
// The parts' structs are embedded without tags of their own, so their
// fields are the checkpoint's; MarshalJSON writes them in the order
// recorded histories hold (checkpointFields), which must name every one.
// A new field is fine; add its tag here and its name at the end of
// checkpointFields.
func TestCheckpointJSONTags(t *testing.T) {
	want := []string{
		"runs", "startedAt", "phase", "goal", "options", "snapshotId,omitempty", "forkedFrom,omitempty",
		"usage", "offline,omitempty", "lastError,omitempty", "tools,omitempty",
		"plan,omitempty", "manifest,omitempty", "skipConfirmations,omitempty", "skipSeq,omitempty",
		"budget,omitempty", "budgetWaived,omitempty", "maxConcurrent,omitempty",
		"approvals,omitempty", "approvalSeq,omitempty", "approvalDecisions,omitempty", "approvalDecisionsDropped,omitempty",
		"rejected,omitempty", "paused,omitempty", "pauseReason,omitempty", "pausedFor,omitempty", "pausedAt,omitempty",
		"notifySeq,omitempty", "noReceiver,omitempty",
		"lease,omitempty",
		"eventSeq,omitempty", "recentEvents,omitempty", "eventPhase,omitempty", "eventAwaiting,omitempty",
	}
	var got, names []string
	typ := reflect.TypeOf(Checkpoint{})
	for i := range typ.NumField() {
		part := typ.Field(i)
		require.True(t, part.Anonymous, "%s: the checkpoint embeds the parts' structs only", part.Name)
		require.Empty(t, part.Tag, "%s: an embedded part has no tag, or its fields would not be the checkpoint's", part.Name)
		for j := range part.Type.NumField() {
			tag := part.Type.Field(j).Tag.Get("json")
			got = append(got, tag)
			name, _, _ := strings.Cut(tag, ",")
			names = append(names, name)
		}
	}
	assert.Equal(t, want, got)
	assert.ElementsMatch(t, checkpointFields, names, "checkpointFields names every field once")
}

// TestCheckpointJSONKeepsItsOrder: a checkpoint encodes with its fields in
// the order recorded histories hold, whichever part owns them, and decodes
// back whole.
func TestCheckpointJSONKeepsItsOrder(t *testing.T) {
	cp := Checkpoint{
		CycleState:     CycleState{Runs: 1, Phase: plan.PhaseExecuting, Goal: "g", LastError: "e"},
		ExecutionState: ExecutionState{Plan: &plan.Plan{ID: "p"}, Manifest: "m", MaxConcurrent: 2},
		InputState:     InputState{Paused: true},
		NotifyState:    NotifyState{NotifySeq: 3},
		LeaseState:     LeaseState{Lease: &WorkspaceLease{Key: "a"}},
	}
	b, err := json.Marshal(cp)
	require.NoError(t, err)
	var keys []string
	dec := json.NewDecoder(bytes.NewReader(b))
	_, err = dec.Token()
	require.NoError(t, err)
	for dec.More() {
		k, err := dec.Token()
		require.NoError(t, err)
		keys = append(keys, k.(string))
		var skip json.RawMessage
		require.NoError(t, dec.Decode(&skip))
	}
	assert.Equal(t, []string{"runs", "startedAt", "phase", "goal", "options", "plan", "manifest", "usage", "lastError",
		"paused", "notifySeq", "maxConcurrent", "lease"}, keys)
	var back Checkpoint
	require.NoError(t, json.Unmarshal(b, &back))
	assert.Equal(t, cp, back)
	again, err := json.Marshal(&back)
	require.NoError(t, err)
	assert.Equal(t, string(b), string(again))
}
