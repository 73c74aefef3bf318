package testsuite

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/planmode/planmode/plan"
	"github.com/planmode/planmode/signals"
	"github.com/planmode/planmode/webhook"
)

// TestGatedCallHoldsOnlyItsStepUntilApproved hands in a plan whose
// write_file step a start-request rule makes ask, beside an independent
// read: the write waits (PlanAwaiting = approval, the pending entry with
// its arguments and digest, the approval-requested webhook event, the
// Web UI details with the commands that decide it) while the read
// completes; an approval runs the call, the file is written, the plan
// completes and the approver is on record.
func TestGatedCallHoldsOnlyItsStepUntilApproved(t *testing.T) {
	t.Parallel()
	r := startGateRig(t, nil)
	ctx, cancel := testContext(t)
	defer cancel()
	id := "plan-gate-approve-" + r.queue
	req := gatedRequest("Write out.txt once someone agrees", r.workspace, signals.ApprovalPolicy{Rules: askWriteFile},
		writeOut("write"), toolStep("read", plan.ToolReadFile, map[string]any{"path": "cart.go"}))
	req.Notify.WebhookURL = r.hookURL
	_, err := r.pc.Start(ctx, id, req)
	require.NoError(t, err)

	a := awaitApproval(ctx, t, r.pc, id, "write", 1)
	assertToolApproval(t, a, "write", plan.ToolWriteFile, map[string]any{"path": "out.txt", "content": "x"})
	assert.Contains(t, a.Why, "write_file", "the plan's rule is named")
	p, err := r.pc.Progress(ctx, id)
	require.NoError(t, err)
	assert.Equal(t, signals.AwaitingApproval, p.Awaiting)
	require.Eventually(t, func() bool {
		v, err := r.pc.Plan(ctx, id)
		if err != nil || v.Plan == nil {
			return false
		}
		s := v.Plan.StepByID("read")
		return s != nil && s.Status == plan.StepCompleted
	}, loadedWait, 20*time.Millisecond, "the independent step completes while the write waits")
	assertNotWritten(t, r.workspace, "out.txt")
	require.Eventually(t, func() bool {
		return strings.Contains(strings.Join(hookEvents(r.hooks), " "), string(webhook.EventApprovalRequested))
	}, loadedWait, 20*time.Millisecond, "the approval-requested event is sent")
	details := currentDetails(ctx, t, r.srv.Client, id)
	for _, want := range []string{a.RequestID, plan.ToolWriteFile, "planmode approve " + id + " " + a.RequestID} {
		assert.Contains(t, details, want, "the Web UI details show the request")
	}

	d, err := approveAsShown(ctx, r.pc, id, a, approver, "checked the path")
	require.NoError(t, err)
	assert.Equal(t, signals.DecisionApproved, d.Decision)
	assert.Equal(t, approver, d.By)
	res, err := r.pc.Result(ctx, id)
	require.NoError(t, err)
	require.Equal(t, signals.StatusCompleted, res.Status, endState(ctx, r.pc, id))
	assert.Equal(t, plan.StepCompleted, stepOf(t, res, "write").Status)
	got, err := os.ReadFile(filepath.Join(r.workspace, "out.txt"))
	require.NoError(t, err, "the approved call ran")
	assert.Equal(t, "x", string(got))
	assert.Contains(t, asJSON(res), approver, "the approver is recorded in the plan's result or history")
}

// TestGatedCallDeniedNeverRuns denies a gated write with a reason: the
// step fails saying it was denied and why, and the file is never
// written, whatever reflection then makes of it.
func TestGatedCallDeniedNeverRuns(t *testing.T) {
	t.Parallel()
	r := startGateRig(t, nil)
	ctx, cancel := testContext(t)
	defer cancel()
	id := "plan-gate-deny-" + r.queue
	_, err := r.pc.Start(ctx, id, gatedRequest("Write out.txt unless someone objects", r.workspace,
		signals.ApprovalPolicy{Rules: askWriteFile}, writeOut("write")))
	require.NoError(t, err)

	a := awaitApproval(ctx, t, r.pc, id, "write", 1)
	const reason = "out.txt belongs to another team"
	d, err := r.pc.Deny(ctx, id, signals.DenyToolCallRequest{RequestID: a.RequestID, Reason: reason, By: "bob"})
	require.NoError(t, err)
	assert.Equal(t, signals.DecisionDenied, d.Decision)
	s := awaitStepEnd(ctx, t, r.pc, id, "write")
	assert.Equal(t, plan.StepFailed, s.Status, stepText(s))
	assert.Contains(t, stepText(s), "denied")
	assert.Contains(t, stepText(s), reason, "the agent sees the reason")
	assertNotWritten(t, r.workspace, "out.txt")
}

// TestGatedCallTimesOutDenied leaves a gated write undecided past a 2 s
// timeout whose outcome is deny: the call is denied by the timeout, not
// run, and the approval-decided event says the timeout decided.
func TestGatedCallTimesOutDenied(t *testing.T) {
	t.Parallel()
	r := startGateRig(t, nil)
	ctx, cancel := testContext(t)
	defer cancel()
	id := "plan-gate-timeout-" + r.queue
	req := gatedRequest("Write out.txt if someone agrees in time", r.workspace,
		signals.ApprovalPolicy{Rules: askWriteFile, Timeout: plan.Duration(2 * time.Second), OnTimeout: signals.ApprovalTimeoutDeny},
		writeOut("write"))
	req.Notify.WebhookURL = r.hookURL
	_, err := r.pc.Start(ctx, id, req)
	require.NoError(t, err)

	a := awaitApproval(ctx, t, r.pc, id, "write", 1)
	assert.Equal(t, signals.ApprovalTimeoutDeny, a.OnTimeout)
	assert.WithinDuration(t, a.Since.Add(2*time.Second), a.Deadline, time.Second, "the request's timeout sets the deadline")
	s := awaitStepEnd(ctx, t, r.pc, id, "write")
	assert.Equal(t, plan.StepFailed, s.Status, stepText(s))
	assert.Contains(t, stepText(s), "denied")
	assertNotWritten(t, r.workspace, "out.txt")
	var decided []signals.ApprovalDecision
	require.Eventually(t, func() bool {
		decided = hookDecisions(t, r.hooks)
		return len(decided) > 0
	}, loadedWait, 20*time.Millisecond, "the approval-decided event is sent; events: %v", hookEvents(r.hooks))
	d := decided[0]
	assert.Equal(t, a.RequestID, d.RequestID)
	assert.Contains(t, []signals.Decision{signals.DecisionTimedOut, signals.DecisionDenied}, d.Decision)
	assert.True(t, d.Auto || strings.Contains(d.By, "timeout"), "the timeout is recorded as the decider: %+v", d)
}

// TestApprovalAfterAnEditIsStale reads a pending request, edits the plan
// (which bumps its version), then approves what it read: the approval is
// refused as StaleApproval and the call does not run. Approving what the
// pending query shows after the edit runs it.
func TestApprovalAfterAnEditIsStale(t *testing.T) {
	t.Parallel()
	r := startGateRig(t, nil)
	ctx, cancel := testContext(t)
	defer cancel()
	id := "plan-gate-stale-" + r.queue
	_, err := r.pc.Start(ctx, id, gatedRequest("Write out.txt once approved", r.workspace,
		signals.ApprovalPolicy{Rules: askWriteFile}, writeOut("write")))
	require.NoError(t, err)

	old := awaitApproval(ctx, t, r.pc, id, "write", 1)
	read := toolStep("read", plan.ToolReadFile, map[string]any{"path": "cart.go"})
	edited, err := r.pc.Edit(ctx, id, signals.EditPlanRequest{Reason: "also read the cart",
		Edits: []plan.Edit{{Op: plan.OpAppend, Step: &read}}})
	require.NoError(t, err)
	require.Greater(t, edited.Version, old.PlanVersion, "the edit made a new plan version")

	_, err = approveAsShown(ctx, r.pc, id, old, approver, "as I saw it")
	require.Error(t, err, "an approval of the old version is refused")
	assert.Equal(t, signals.ErrorTypeStaleApproval, signals.RejectionType(err), "refused as stale: %v", err)
	assertNotWritten(t, r.workspace, "out.txt")

	fresh := awaitApproval(ctx, t, r.pc, id, "write", edited.Version)
	_, err = approveAsShown(ctx, r.pc, id, fresh, approver, "as it is now")
	require.NoError(t, err)
	res, err := r.pc.Result(ctx, id)
	require.NoError(t, err)
	require.Equal(t, signals.StatusCompleted, res.Status, endState(ctx, r.pc, id))
	assert.FileExists(t, filepath.Join(r.workspace, "out.txt"))
}

// TestDenyRuleRefusesAtOnce gives a plan a rule that denies write_file:
// the call is refused without waiting for anyone (no approval-requested
// event) and the step fails naming the rule.
func TestDenyRuleRefusesAtOnce(t *testing.T) {
	t.Parallel()
	r := startGateRig(t, nil)
	ctx, cancel := testContext(t)
	defer cancel()
	id := "plan-gate-denyrule-" + r.queue
	rules := plan.ApprovalRules{{Match: plan.ToolWriteFile, Action: plan.ApprovalDeny}}
	req := gatedRequest("Try to write out.txt", r.workspace, signals.ApprovalPolicy{Rules: rules}, writeOut("write"))
	req.Notify.WebhookURL = r.hookURL
	_, err := r.pc.Start(ctx, id, req)
	require.NoError(t, err)

	s := awaitStepEnd(ctx, t, r.pc, id, "write")
	assert.Equal(t, plan.StepFailed, s.Status, stepText(s))
	assert.Contains(t, stepText(s), "write_file -> deny", "the step names the rule that refused it")
	assertNotWritten(t, r.workspace, "out.txt")
	require.Eventually(t, func() bool {
		events := hookEvents(r.hooks)
		return slices.Contains(events, string(webhook.EventStepFailed)) || slices.Contains(events, string(webhook.EventStepCompleted))
	}, loadedWait, 20*time.Millisecond, "the step's end reaches the receiver")
	for _, a := range hookApprovals(t, r.hooks) {
		assert.NotEqual(t, "write", a.StepID, "nobody was asked about the denied call")
	}
}

// TestCLIListsAndApprovesAGatedCall finds a waiting plan's gated call
// with "planmode approvals --json" and approves it with "planmode
// approve PLAN REQUEST", which fills in the digest and version from the
// pending query; the plan completes.
func TestCLIListsAndApprovesAGatedCall(t *testing.T) {
	isolate(t)
	r := startGateRig(t, nil)
	ctx, cancel := testContext(t)
	defer cancel()
	id := "plan-gate-cli-" + r.queue
	_, err := r.pc.Start(ctx, id, gatedRequest("Write out.txt once approved from the CLI", r.workspace,
		signals.ApprovalPolicy{Rules: askWriteFile}, writeOut("write")))
	require.NoError(t, err)
	a := awaitApproval(ctx, t, r.pc, id, "write", 1)

	var listed struct {
		Approvals []struct {
			WorkflowID string `json:"workflowId"`
			RequestID  string `json:"requestId"`
			Tool       string `json:"tool"`
			ArgsDigest string `json:"argsDigest"`
		} `json:"approvals"`
	}
	require.Eventually(t, func() bool {
		res := r.cli(t, "approvals", "--json")
		if res.code != 0 || json.Unmarshal([]byte(res.out), &listed) != nil {
			return false
		}
		for _, l := range listed.Approvals {
			if l.WorkflowID == id && l.RequestID == a.RequestID {
				assert.Equal(t, plan.ToolWriteFile, l.Tool)
				assert.Equal(t, a.ArgsDigest, l.ArgsDigest)
				return true
			}
		}
		return false
	}, loadedWait, 100*time.Millisecond, "the inbox lists the plan's request")

	approve := r.cli(t, "approve", id, a.RequestID, "--reason", "looks right")
	require.Equal(t, 0, approve.code, approve.errOut)
	res, err := r.pc.Result(ctx, id)
	require.NoError(t, err)
	require.Equal(t, signals.StatusCompleted, res.Status, endState(ctx, r.pc, id))
	assert.FileExists(t, filepath.Join(r.workspace, "out.txt"))
	assert.Contains(t, asJSON(res), "cli:", "the CLI's caller is recorded as the approver")
}
