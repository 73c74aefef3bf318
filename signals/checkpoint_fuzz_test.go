package signals

import (
	"encoding/json"
	"reflect"
	"testing"

	"github.com/planmode/planmode/plan"
)

// FuzzCheckpoint feeds start requests carrying any checkpoint: decoding and
// validation never panic, a checkpoint without a plan is refused, and an
// accepted one survives the JSON round trip continue-as-new puts it
// through, whole.
func FuzzCheckpoint(f *testing.F) {
	full, err := json.Marshal(StartRequest{Goal: "g", Checkpoint: &Checkpoint{
		CycleState: CycleState{Runs: 2, Goal: "g", Phase: plan.PhaseExecuting},
		ExecutionState: ExecutionState{SkipSeq: 3,
			Plan: &plan.Plan{ID: "p", Steps: []plan.Step{{ID: "s1", Title: "t", Action: plan.ActionLLM, Status: plan.StepCompleted}}}},
		NotifyState: NotifyState{NotifySeq: 4}, InputState: InputState{Paused: true, PauseReason: "lunch"}}})
	if err != nil {
		f.Fatal(err)
	}
	for _, seed := range []string{string(full), `{"goal":"g","checkpoint":{}}`, `{"goal":"g","checkpoint":{"plan":null}}`,
		`{"goal":"g","checkpoint":{"runs":-1,"plan":{"steps":[]}}}`, `{"goal":"g","checkpoint":{"plan":{"steps":[{"id":"s1"}]},"skipConfirmations":[{}]}}`} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		var req StartRequest
		if err := json.Unmarshal([]byte(raw), &req); err != nil || req.Checkpoint == nil {
			return
		}
		err := req.Validate()
		if req.Checkpoint.Plan == nil && err == nil {
			t.Fatalf("a checkpoint without a plan was accepted: %s", raw)
		}
		if err != nil {
			return
		}
		b, err := json.Marshal(req.Checkpoint)
		if err != nil {
			t.Fatalf("an accepted checkpoint does not encode: %v", err)
		}
		var again Checkpoint
		if err := json.Unmarshal(b, &again); err != nil {
			t.Fatalf("an accepted checkpoint does not decode again: %v", err)
		}
		b2, _ := json.Marshal(&again)
		if !reflect.DeepEqual(b, b2) {
			t.Fatalf("the checkpoint changed across a round trip:\n%s\n%s", b, b2)
		}
	})
}
