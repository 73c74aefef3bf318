package workflows

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/planmode/planmode/plan"
	"github.com/planmode/planmode/signals"
)

// TestCallerIsRecorded: an edit names its caller in the version
// history, an edit without one is the "user's", a refused signal keeps
// its caller, and a skip approval is recorded on the caller's behalf.
func TestCallerIsRecorded(t *testing.T) {
	h := newHarness(t)
	afterFirst(h, plan.Reflection{Decision: plan.DecisionSkip, StepIDs: []string{"s3"}, Reason: "not needed", Confidence: 0.1})
	h.at(stepTime/2, func() {
		s4 := llmStep("s4", "s3")
		signal(h, signals.EditPlan, signals.EditPlanRequest{By: "ci-bot", Reason: "one more", Edits: []plan.Edit{{Op: plan.OpAppend, Step: &s4}}})
		signal(h, signals.Resume, signals.ControlRequest{By: "alice"})
	})
	h.at(time.Hour, func() {
		signal(h, signals.ConfirmSkip, signals.ConfirmSkipRequest{RequestID: "skip-1", Approve: true, By: "bob"})
	})
	res := h.run(autoReq())

	require.Equal(t, signals.StatusCompleted, res.Status)
	var actors []plan.Actor
	for _, u := range res.Plan.UpdateHistory {
		actors = append(actors, u.Actor)
	}
	assert.Contains(t, actors, plan.Actor("ci-bot"))
	assert.Contains(t, actors, plan.Actor("bob"), "the skip approval is bob's")
	pending := query(h, signals.PendingQuery)
	require.NotEmpty(t, pending.Rejected)
	assert.Equal(t, "alice", pending.Rejected[0].By, "a refused resume keeps its caller")
	assert.Contains(t, currentDetails(h), "from alice")
}

// TestCallerIsBounded refuses a by longer than MaxCallerBytes.
func TestCallerIsBounded(t *testing.T) {
	err := signals.ControlRequest{By: strings.Repeat("x", signals.MaxCallerBytes+1)}.Validate()
	assert.ErrorContains(t, err, "by is 257 bytes: at most 256 bytes")
	assert.Equal(t, plan.ActorUser, signals.Caller(""))
}
