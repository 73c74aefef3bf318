package workflows

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/planmode/planmode/activities"
	"github.com/planmode/planmode/plan"
	"github.com/planmode/planmode/signals"
	"github.com/planmode/planmode/webhook"
)

// sent returns the webhook inputs of event e, in the order sent.
func sent(f *fakes, e activities.NotifyEvent) []activities.NotifyInput {
	var out []activities.NotifyInput
	for _, in := range f.notified() {
		if in.Event == e {
			out = append(out, in)
		}
	}
	return out
}

func TestGateAsksAgainAfterAnEditWithANewEvent(t *testing.T) {
	h := newHarness(t)
	h.at(time.Minute, func() {
		read := toolStep("read", plan.ToolReadFile, map[string]any{"path": "a.go"})
		update(h, signals.EditPlan, signals.EditPlanRequest{Reason: "also read", Edits: []plan.Edit{{Op: plan.OpAppend, Step: &read}}})
	})
	h.at(2*time.Minute, func() {
		a := query(h, signals.PendingQuery).Approvals[0]
		update(h, signals.ApproveToolCall, signals.ApproveToolCallRequest{RequestID: a.RequestID, ArgsDigest: a.ArgsDigest,
			PlanVersion: a.PlanVersion})
	})
	res := h.run(gatedReq(signals.ApprovalPolicy{}, toolStep("write", plan.ToolWriteFile, writeParams)))
	require.Equal(t, signals.StatusCompleted, res.Status, res.Error)

	asked := sent(h.f, webhook.EventApprovalRequested)
	require.Len(t, asked, 2, "asked, then asked again under the edited plan")
	for i, in := range asked {
		require.NotNil(t, in.Data.Approval)
		assert.Equal(t, "approval-1", in.Data.Approval.RequestID)
		assert.Equal(t, i+1, in.Data.Approval.PlanVersion)
	}
	assert.Contains(t, asked[1].Data.Message, "asks again")
}

func TestGateDenyRuleSendsADecisionByPolicy(t *testing.T) {
	h := newHarness(t)
	req := gatedReq(signals.ApprovalPolicy{}, toolStep("write", plan.ToolWriteFile, writeParams))
	req.Approval.Rules = plan.ApprovalRules{{Match: "write_*", Action: plan.ApprovalDeny}}
	res := h.run(req)
	assert.Equal(t, plan.StepFailed, res.Plan.StepByID("write").Status)

	decided := sent(h.f, webhook.EventApprovalDecided)
	require.Len(t, decided, 1)
	d := decided[0].Data.Decision
	require.NotNil(t, d)
	assert.Equal(t, "policy", d.By)
	assert.Equal(t, signals.DecisionDenied, d.Decision)
	assert.Equal(t, "write", d.StepID)
	assert.Contains(t, d.Reason, "write_* -> deny")
}
