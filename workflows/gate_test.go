package workflows

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/temporal"

	"github.com/planmode/planmode/activities"
	"github.com/planmode/planmode/plan"
	"github.com/planmode/planmode/signals"
	"github.com/planmode/planmode/webhook"
)

// writeParams are the arguments of the gated write in these tests.
var writeParams = map[string]any{"path": "out.txt", "content": "x"}

// gatedReq hands in steps under a policy that makes write_file ask, two
// steps at a time.
func gatedReq(pol signals.ApprovalPolicy, steps ...plan.Step) signals.StartRequest {
	req := manualReq()
	req.Execution.Parallelism = 2
	pol.Rules = append(plan.ApprovalRules{{Match: plan.ToolWriteFile, Action: plan.ApprovalAsk}}, pol.Rules...)
	req.Approval = pol
	req.Plan = &signals.ExternalPlan{Steps: steps}
	return req
}

// toolCalls names the tools RunTool ran, in order.
func toolCalls(f *fakes) []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	var out []string
	for _, in := range f.toolIn {
		out = append(out, in.Call.Name)
	}
	return out
}

// events lists the webhook events the run sent, in order.
func events(f *fakes) []activities.NotifyEvent {
	f.mu.Lock()
	defer f.mu.Unlock()
	var out []activities.NotifyEvent
	for _, in := range f.notifyIn {
		out = append(out, in.Event)
	}
	return out
}

// count counts e in es.
func countEvent(es []activities.NotifyEvent, e activities.NotifyEvent) int {
	n := 0
	for _, x := range es {
		if x == e {
			n++
		}
	}
	return n
}

func TestGateHoldsOnlyItsStepUntilApproved(t *testing.T) {
	h := newHarness(t)
	var pending signals.Pending
	var prog signals.Progress
	var pv signals.PlanView
	var approved *outcome[signals.ApprovalDecision]
	h.at(time.Minute, func() {
		pending = query(h, signals.PendingQuery)
		prog = query(h, signals.ProgressQuery)
		pv = query(h, signals.PlanQuery)
		a := pending.Approvals[0]
		approved = update(h, signals.ApproveToolCall, signals.ApproveToolCallRequest{RequestID: a.RequestID,
			ArgsDigest: a.ArgsDigest, PlanVersion: a.PlanVersion, By: "ann", Note: "fine"})
	})
	res := h.run(gatedReq(signals.ApprovalPolicy{}, toolStep("write", plan.ToolWriteFile, writeParams),
		toolStep("read", plan.ToolReadFile, map[string]any{"path": "a.go"})))

	require.Len(t, pending.Approvals, 1)
	a := pending.Approvals[0]
	args, _ := json.Marshal(writeParams)
	assert.Equal(t, "approval-1", a.RequestID)
	assert.Equal(t, "write", a.StepID)
	assert.JSONEq(t, string(args), string(a.Args))
	assert.Equal(t, plan.ArgsDigest(args), a.ArgsDigest)
	assert.Contains(t, a.Why, "write_file -> ask")
	assert.Equal(t, signals.AwaitingApproval, pending.Awaiting)
	assert.Equal(t, signals.AwaitingApproval, prog.Awaiting)
	assert.Equal(t, plan.StepCompleted, pv.Plan.StepByID("read").Status, "the independent step ran meanwhile")
	assert.Equal(t, plan.StepRunning, pv.Plan.StepByID("write").Status)
	d := requireAccepted(t, approved)
	assert.Equal(t, signals.DecisionApproved, d.Decision)
	require.Equal(t, signals.StatusCompleted, res.Status, res.Error)
	assert.ElementsMatch(t, []string{plan.ToolReadFile, plan.ToolWriteFile}, toolCalls(h.f))
	assert.Contains(t, res.Plan.StepByID("write").Note, "approved by ann: fine")
	es := events(h.f)
	assert.Equal(t, 1, countEvent(es, webhook.EventApprovalRequested))
	assert.Equal(t, 1, countEvent(es, webhook.EventApprovalDecided))
}

func TestGateDenialFailsTheStepWithoutRunningOrRetrying(t *testing.T) {
	h := newHarness(t)
	h.at(time.Minute, func() {
		signal(h, signals.DenyToolCall, signals.DenyToolCallRequest{RequestID: "approval-1", Reason: "not yours", By: "bob"})
	})
	write := toolStep("write", plan.ToolWriteFile, writeParams)
	write.MaxRetries = 2
	res := h.run(gatedReq(signals.ApprovalPolicy{}, write))

	s := res.Plan.StepByID("write")
	assert.Equal(t, plan.StepFailed, s.Status)
	require.NotNil(t, s.Result)
	assert.Contains(t, s.Result.Error, "denied by bob: not yours")
	assert.Equal(t, 1, s.Result.Attempts, "a refusal is not retried")
	assert.Empty(t, toolCalls(h.f), "the denied call never ran")
}

func TestGateDenyRuleRefusesAtOnce(t *testing.T) {
	h := newHarness(t)
	req := gatedReq(signals.ApprovalPolicy{}, toolStep("write", plan.ToolWriteFile, writeParams))
	req.Approval.Rules = plan.ApprovalRules{{Match: "write_*", Action: plan.ApprovalDeny}}
	res := h.run(req)

	s := res.Plan.StepByID("write")
	assert.Equal(t, plan.StepFailed, s.Status)
	assert.Contains(t, s.Result.Error, "write_* -> deny")
	assert.Zero(t, countEvent(events(h.f), webhook.EventApprovalRequested))
	assert.Empty(t, toolCalls(h.f))
}

func TestGateTimeoutOutcomes(t *testing.T) {
	for _, tc := range []struct {
		on       signals.ApprovalTimeout
		status   signals.Status
		stepText string
	}{
		{signals.ApprovalTimeoutDeny, signals.StatusFailed, "denied (timed out) by timeout"},
		{signals.ApprovalTimeoutFailStep, signals.StatusFailed, "onTimeout fail-step"},
		{signals.ApprovalTimeoutFailPlan, signals.StatusFailed, "onTimeout fail-plan"},
	} {
		t.Run(string(tc.on), func(t *testing.T) {
			h := newHarness(t)
			res := h.run(gatedReq(signals.ApprovalPolicy{Timeout: plan.Duration(time.Hour), OnTimeout: tc.on},
				toolStep("write", plan.ToolWriteFile, writeParams)))
			assert.Equal(t, tc.status, res.Status)
			s := res.Plan.StepByID("write")
			assert.Equal(t, plan.StepFailed, s.Status)
			assert.Contains(t, s.Result.Error, tc.stepText)
			assert.Empty(t, toolCalls(h.f))
			if tc.on == signals.ApprovalTimeoutFailPlan {
				assert.Contains(t, res.Error, "fail-plan")
			}
		})
	}
}

func TestGateTimeoutPausesWithTheCallStillPending(t *testing.T) {
	h := newHarness(t)
	var pending signals.Pending
	var approved *outcome[signals.ApprovalDecision]
	h.at(2*time.Hour, func() {
		pending = query(h, signals.PendingQuery)
		approved = update(h, signals.ApproveToolCall, signals.ApproveToolCallRequest{RequestID: "approval-1", By: "ann"})
	})
	h.at(3*time.Hour, func() { update(h, signals.Resume, signals.ControlRequest{Reason: "approved"}) })
	res := h.run(gatedReq(signals.ApprovalPolicy{Timeout: plan.Duration(time.Hour), OnTimeout: signals.ApprovalTimeoutPause},
		toolStep("write", plan.ToolWriteFile, writeParams)))

	assert.True(t, pending.Paused, "the timeout paused the plan")
	require.Len(t, pending.Approvals, 1, "the call still waits")
	requireAccepted(t, approved)
	require.Equal(t, signals.StatusCompleted, res.Status, res.Error)
	assert.Equal(t, []string{plan.ToolWriteFile}, toolCalls(h.f))
}

func TestGateRemindsOnce(t *testing.T) {
	h := newHarness(t)
	h.at(50*time.Minute, func() {
		update(h, signals.ApproveToolCall, signals.ApproveToolCallRequest{RequestID: "approval-1", By: "ann"})
	})
	res := h.run(gatedReq(signals.ApprovalPolicy{RemindAfter: plan.Duration(10 * time.Minute), Timeout: plan.Duration(time.Hour)},
		toolStep("write", plan.ToolWriteFile, writeParams)))
	require.Equal(t, signals.StatusCompleted, res.Status, res.Error)
	assert.Equal(t, 1, countEvent(events(h.f), webhook.EventApprovalReminder))
}

func TestGateApprovalOfAnEditedPlanIsStale(t *testing.T) {
	h := newHarness(t)
	var stale, fresh *outcome[signals.ApprovalDecision]
	var after signals.Pending
	h.at(time.Minute, func() {
		before := query(h, signals.PendingQuery).Approvals[0]
		read := toolStep("read", plan.ToolReadFile, map[string]any{"path": "a.go"})
		update(h, signals.EditPlan, signals.EditPlanRequest{Reason: "also read", Edits: []plan.Edit{{Op: plan.OpAppend, Step: &read}}})
		stale = update(h, signals.ApproveToolCall, signals.ApproveToolCallRequest{RequestID: before.RequestID,
			ArgsDigest: before.ArgsDigest, PlanVersion: before.PlanVersion})
	})
	h.at(2*time.Minute, func() {
		after = query(h, signals.PendingQuery)
		a := after.Approvals[0]
		fresh = update(h, signals.ApproveToolCall, signals.ApproveToolCallRequest{RequestID: a.RequestID,
			ArgsDigest: a.ArgsDigest, PlanVersion: a.PlanVersion})
	})
	res := h.run(gatedReq(signals.ApprovalPolicy{}, toolStep("write", plan.ToolWriteFile, writeParams)))

	requireRejected(t, stale, "plan version")
	var app *temporal.ApplicationError
	require.ErrorAs(t, stale.rejected, &app)
	assert.Equal(t, signals.ErrorTypeStaleApproval, app.Type())
	assert.Equal(t, "approval-1", after.Approvals[0].RequestID, "the same request, asked again")
	assert.Equal(t, 2, after.Approvals[0].PlanVersion)
	requireAccepted(t, fresh)
	require.Equal(t, signals.StatusCompleted, res.Status, res.Error)
}

func TestGateMCPCallAsksThenCallsUnderTheRecordedDigest(t *testing.T) {
	h := newHarness(t)
	h.f.tools = func() (signals.RecordedTools, error) {
		return signals.RecordedTools{MCPDigest: "sha256:cat", MCP: []signals.RecordedTool{
			{Name: "mcp__t__close", Parameters: json.RawMessage(`{"type":"object","properties":{"id":{"type":"string"}},"required":["id"]}`)},
			{Name: "mcp__t__list", ReadOnly: true}}}, nil
	}
	var badArgs, approved *outcome[signals.ApprovalDecision]
	h.at(time.Minute, func() {
		badArgs = update(h, signals.ApproveToolCall, signals.ApproveToolCallRequest{RequestID: "approval-1", Args: json.RawMessage(`{"id":7}`)})
		approved = update(h, signals.ApproveToolCall, signals.ApproveToolCallRequest{RequestID: "approval-1", Args: json.RawMessage(`{"id":"T-2"}`)})
	})
	req := gatedReq(signals.ApprovalPolicy{}, toolStep("close", "mcp__t__close", map[string]any{"id": "T-1"}),
		toolStep("list", "mcp__t__list", nil))
	res := h.run(req)

	requireRejected(t, badArgs, "args for mcp__t__close")
	assert.True(t, requireAccepted(t, approved).EditedArgs)
	require.Equal(t, signals.StatusCompleted, res.Status, res.Error)
	require.Len(t, h.f.mcpIn, 2, "the read-only tool asked nobody")
	for _, in := range h.f.mcpIn {
		assert.Equal(t, "sha256:cat", in.CatalogueDigest)
		if in.Name == "mcp__t__close" {
			assert.JSONEq(t, `{"id":"T-2"}`, in.Arguments, "the edited arguments ran")
		}
	}
}

func TestMCPOutcomeUnknownIsNotRetried(t *testing.T) {
	h := newHarness(t)
	h.f.tools = func() (signals.RecordedTools, error) {
		return signals.RecordedTools{MCPDigest: "sha256:cat", MCP: []signals.RecordedTool{{Name: "mcp__t__list", ReadOnly: true}}}, nil
	}
	h.f.mcpCall = func(activities.MCPCallInput) (activities.MCPCallOutput, error) {
		return activities.MCPCallOutput{}, temporal.NewApplicationErrorWithOptions("server died", activities.ErrorTypeMCPOutcomeUnknown,
			temporal.ApplicationErrorOptions{NonRetryable: true, Details: []any{activities.MCPCallOutput{OutcomeUnknown: true, Error: "server died"}}})
	}
	res := h.run(gatedReq(signals.ApprovalPolicy{}, toolStep("list", "mcp__t__list", nil)))
	s := res.Plan.StepByID("list")
	assert.Equal(t, plan.StepFailed, s.Status)
	assert.Contains(t, s.Result.Error, "outcome unknown")
	assert.Len(t, h.f.mcpIn, 1)
}

func TestRaiseBudgetResumesABudgetPause(t *testing.T) {
	h := newHarness(t)
	var lower, raised *outcome[signals.RaiseBudgetResponse]
	h.at(time.Hour, func() {
		lower = sendUpdate[signals.RaiseBudgetResponse](h, signals.RaiseBudget.Name, signals.RaiseBudgetRequest{MaxTokens: 5, Reason: "less"})
		raised = sendUpdate[signals.RaiseBudgetResponse](h, signals.RaiseBudget.Name, signals.RaiseBudgetRequest{MaxTokens: 1000, Reason: "worth it", By: "ann"})
	})
	req := manualReq()
	req.Selection.Mode = signals.SelectAuto
	req.Budget = signals.Budget{MaxTokens: 30, OnExceed: signals.BudgetPause}
	res := h.run(req)

	requireRejected(t, lower, "caps only go up")
	got := requireAccepted(t, raised)
	assert.True(t, got.Resumed)
	assert.Equal(t, 1000, got.Budget.MaxTokens)
	require.Equal(t, signals.StatusCompleted, res.Status, res.Error)
}

func TestAgentStepIsOfferedTheRecordedMCPToolsItNames(t *testing.T) {
	h := newHarness(t)
	h.f.tools = func() (signals.RecordedTools, error) {
		return signals.RecordedTools{MCPDigest: "sha256:cat", MCP: []signals.RecordedTool{
			{Name: "mcp__t__close"}, {Name: "mcp__t__list", ReadOnly: true}}}, nil
	}
	ag := agentStep("agent", 3)
	ag.Config.Agent.Tools = []string{plan.ToolReadFile, "mcp__t__list"}
	res := h.run(gatedReq(signals.ApprovalPolicy{}, ag))
	require.Equal(t, signals.StatusCompleted, res.Status, res.Error)
	require.NotEmpty(t, h.f.agentIn)
	require.Len(t, h.f.agentIn[0].MCPTools, 1)
	assert.Equal(t, "mcp__t__list", h.f.agentIn[0].MCPTools[0].Name)
}

// TestGateChecksEditedArgsOfTheWorkersOwnTools: edited arguments for a
// built-in tool are checked against the schema the worker recorded for
// it: a path that is not a string is refused, a good edit runs.
func TestGateChecksEditedArgsOfTheWorkersOwnTools(t *testing.T) {
	h := newHarness(t)
	h.f.tools = func() (signals.RecordedTools, error) {
		return signals.RecordedTools{Schemas: map[string]json.RawMessage{plan.ToolWriteFile: json.RawMessage(
			`{"type":"object","properties":{"path":{"type":"string"},"content":{"type":"string"}},"required":["path"]}`)}}, nil
	}
	var badArgs, approved *outcome[signals.ApprovalDecision]
	h.at(time.Minute, func() {
		badArgs = update(h, signals.ApproveToolCall, signals.ApproveToolCallRequest{RequestID: "approval-1",
			Args: json.RawMessage(`{"path":7,"content":"x"}`)})
		approved = update(h, signals.ApproveToolCall, signals.ApproveToolCallRequest{RequestID: "approval-1",
			Args: json.RawMessage(`{"path":"reviewed.txt","content":"x"}`)})
	})
	res := h.run(gatedReq(signals.ApprovalPolicy{}, toolStep("write", plan.ToolWriteFile, writeParams)))

	requireRejected(t, badArgs, "args for write_file")
	assert.True(t, requireAccepted(t, approved).EditedArgs)
	require.Equal(t, signals.StatusCompleted, res.Status, res.Error)
	require.Len(t, h.f.toolIn, 1)
	assert.JSONEq(t, `{"path":"reviewed.txt","content":"x"}`, string(h.f.toolIn[0].Call.Arguments), "the edited arguments ran")
}
