package signals

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/planmode/planmode/plan"
)

var digest = plan.ArgsDigest(json.RawMessage(`{"title":"Fix the bug"}`))

func TestApprovalPayloadsRefuseBadInput(t *testing.T) {
	approve := func(args string) string {
		return `{"requestId":"a1","argsDigest":"` + digest + `","planVersion":2,"args":` + args + `}`
	}
	big := `{"body":"` + strings.Repeat("x", MaxApprovalArgsBytes) + `"}`
	for _, tc := range []struct {
		name, payload string
		decode        func(json.RawMessage) error
		typ, want     string
	}{
		{"approve array args", approve(`[1,2]`), decodeApprove, ErrorTypeInvalidInput, "args must be a JSON object"},
		{"approve string args", approve(`"rm -rf /"`), decodeApprove, ErrorTypeInvalidInput, "args must be a JSON object"},
		{"approve null args", approve(`null`), decodeApprove, ErrorTypeInvalidInput, "args must be a JSON object"},
		{"approve huge args", approve(big), decodeApprove, ErrorTypeTooLarge, "args is"},
		{"approve without id", `{"argsDigest":"` + digest + `","planVersion":1}`, decodeApprove, ErrorTypeInvalidInput, "requestId is required"},
		{"approve upper-case digest", `{"requestId":"a1","argsDigest":"` + strings.ToUpper(digest) + `","planVersion":1}`, decodeApprove, ErrorTypeInvalidInput, "argsDigest"},
		{"approve negative version", `{"requestId":"a1","argsDigest":"` + digest + `","planVersion":-1}`, decodeApprove, ErrorTypeInvalidInput, "planVersion -1"},
		{"approve with a reason, not a note", `{"requestId":"a1","reason":"ok"}`, decodeApprove, ErrorTypeInvalidInput, "unknown field"},
		{"approve unknown field", `{"requestId":"a1","argsDigest":"` + digest + `","planVersion":1,"approve":true}`, decodeApprove, ErrorTypeInvalidInput, "unknown field"},
		{"deny without reason", `{"requestId":"a1","reason":" "}`, decodeDeny, ErrorTypeInvalidInput, "reason is required"},
		{"deny long id", `{"requestId":"` + strings.Repeat("a", 65) + `","reason":"no"}`, decodeDeny, ErrorTypeTooLarge, "requestId is 65 bytes"},
		{"raise without reason", `{"maxTokens":10}`, decodeRaise, ErrorTypeInvalidInput, "reason is required"},
		{"raise nothing", `{"reason":"more"}`, decodeRaise, ErrorTypeInvalidInput, "give maxTokens"},
		{"raise negative", `{"maxCostUSD":-1,"reason":"more"}`, decodeRaise, ErrorTypeInvalidInput, "maxCostUSD -1"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.decode(json.RawMessage(tc.payload))
			require.Error(t, err)
			assert.Contains(t, err.Error(), tc.want)
			assert.Equal(t, tc.typ, RejectionType(rejectionOf(err)))
		})
	}
}

func decodeApprove(raw json.RawMessage) error { _, err := ApproveToolCall.Decode(raw); return err }
func decodeDeny(raw json.RawMessage) error    { _, err := DenyToolCall.Decode(raw); return err }
func decodeRaise(raw json.RawMessage) error   { _, err := RaiseBudget.Decode(raw); return err }

func TestApproveAcceptsEditedObject(t *testing.T) {
	r, err := ApproveToolCall.Decode(json.RawMessage(`{"requestId":"a1","argsDigest":"` + digest +
		`","planVersion":2,"args":{"title":"Fix the bug properly"},"by":"ann","note":"better title"}`))
	require.NoError(t, err)
	assert.JSONEq(t, `{"title":"Fix the bug properly"}`, string(r.Args))
	assert.Equal(t, "better title", r.Note)

	// The contract's minimal form: the request id alone.
	r, err = ApproveToolCall.Decode(json.RawMessage(`{"requestId":"a1"}`))
	require.NoError(t, err)
	assert.Equal(t, "a1", r.RequestID)
}

// TestCheckApprovalRefusesStale: an approval of other arguments, under
// another plan version, or of a request the plan has moved past since is
// refused as stale; only an approval of exactly what was asked passes.
func TestCheckApprovalRefusesStale(t *testing.T) {
	open := ToolApproval{RequestID: "a1", Tool: "mcp__github__create_issue", ArgsDigest: digest, PlanVersion: 2}
	ok := ApproveToolCallRequest{RequestID: "a1", ArgsDigest: digest, PlanVersion: 2}
	require.NoError(t, open.CheckApproval(ok, 2))
	require.NoError(t, open.CheckApproval(ApproveToolCallRequest{RequestID: "a1"}, 2), "the id alone approves what was asked")

	other := ok
	other.ArgsDigest = plan.ArgsDigest(json.RawMessage(`{"title":"Something else"}`))
	older := ok
	older.PlanVersion = 1
	wrongID := ok
	wrongID.RequestID = "a2"
	for _, tc := range []struct {
		name    string
		req     ApproveToolCallRequest
		version int
		typ     string
	}{
		{"other arguments", other, 2, ErrorTypeStaleApproval},
		{"other plan version", older, 2, ErrorTypeStaleApproval},
		{"plan edited since", ok, 3, ErrorTypeStaleApproval},
		{"plan edited since, no digest or version given", ApproveToolCallRequest{RequestID: "a1"}, 3, ErrorTypeStaleApproval},
		{"another request", wrongID, 2, ErrorTypeUnknownRequest},
	} {
		err := open.CheckApproval(tc.req, tc.version)
		assert.Equal(t, tc.typ, RejectionType(err), "%s: %v", tc.name, err)
		assert.True(t, IsRejected(err), tc.name)
	}
}

func TestBudgetRaiseOnlyUpward(t *testing.T) {
	b := Budget{MaxTokens: 1000, MaxCostUSD: 1, OnExceed: BudgetPause}
	got, err := b.Raise(RaiseBudgetRequest{MaxTokens: 5000, Reason: "more"})
	require.NoError(t, err)
	assert.Equal(t, Budget{MaxTokens: 5000, MaxCostUSD: 1, OnExceed: BudgetPause}, got)
	got, err = b.Raise(RaiseBudgetRequest{MaxTokens: 1000, MaxCostUSD: 2.5, Reason: "more"})
	require.NoError(t, err)
	assert.Equal(t, 2.5, got.MaxCostUSD)

	for _, tc := range []struct {
		budget Budget
		req    RaiseBudgetRequest
		want   string
	}{
		{b, RaiseBudgetRequest{MaxTokens: 999}, "below the cap in force"},
		{b, RaiseBudgetRequest{MaxTokens: 2000, MaxCostUSD: 0.5}, "maxCostUSD 0.5 is below"},
		{Budget{MaxCostUSD: 1}, RaiseBudgetRequest{MaxTokens: 10}, "no token cap to raise"},
		{Budget{MaxTokens: 1}, RaiseBudgetRequest{MaxCostUSD: 10}, "no cost cap to raise"},
	} {
		got, err := tc.budget.Raise(tc.req)
		require.Error(t, err)
		assert.Contains(t, err.Error(), tc.want)
		assert.Equal(t, ErrorTypeInvalidInput, RejectionType(err))
		assert.Equal(t, tc.budget, got, "a refused raise changes nothing")
	}
}

func TestApprovalPolicyProblems(t *testing.T) {
	req := StartRequest{Goal: "g", Approval: ApprovalPolicy{
		Rules:       plan.ApprovalRules{{Match: "mcp__github__*", Action: plan.ApprovalAsk}, {Match: `bad\`, Action: plan.ApprovalAllow}},
		Timeout:     plan.Duration(time.Hour),
		RemindAfter: plan.Duration(2 * time.Hour),
		OnTimeout:   "later",
	}}
	err := req.Validate()
	require.Error(t, err)
	for _, want := range []string{
		`approval.rules: rule 2 ("bad\\"): match "bad\\" ends in a lone backslash`,
		"approval.remindAfter 2h0m0s must come before approval.timeout 1h0m0s",
		`approval.onTimeout "later": want deny, fail-step, pause or fail-plan`,
	} {
		assert.Contains(t, err.Error(), want)
	}
	req.Approval = ApprovalPolicy{Timeout: MaxWait + 1}
	assert.ErrorContains(t, req.Validate(), "approval.timeout")
	req.Approval = ApprovalPolicy{Timeout: plan.Duration(time.Hour), RemindAfter: plan.Duration(10 * time.Minute), OnTimeout: ApprovalTimeoutFailPlan}
	assert.NoError(t, req.Validate())
}

func TestApprovalPolicyWithDefaults(t *testing.T) {
	worker := ApprovalPolicy{Timeout: plan.Duration(4 * time.Hour), OnTimeout: ApprovalTimeoutPause}
	got := ApprovalPolicy{}.WithDefaults(worker)
	assert.Equal(t, plan.Duration(4*time.Hour), got.Timeout)
	assert.Equal(t, DefaultApprovalRemindAfter, got.RemindAfter)
	assert.Equal(t, ApprovalTimeoutPause, got.OnTimeout)

	got = ApprovalPolicy{Timeout: plan.Duration(30 * time.Minute)}.WithDefaults(ApprovalPolicy{})
	assert.Equal(t, plan.Duration(0), got.RemindAfter, "a reminder after the deadline is dropped")
	assert.Equal(t, DefaultApprovalOnTimeout, got.OnTimeout)
	assert.Equal(t, DefaultApprovalTimeout, ApprovalPolicy{}.WithDefaults(ApprovalPolicy{}).Timeout)
}

func TestApprovalArgsAreBounded(t *testing.T) {
	full, preview, size := ApprovalArgs(json.RawMessage(`{ "b": 1, "a": 2 }`))
	assert.Equal(t, `{"a":2,"b":1}`, string(full))
	assert.Empty(t, preview)
	assert.Equal(t, 13, size)

	huge := json.RawMessage(`{"body":"` + strings.Repeat("x", 100<<10) + `"}`)
	full, preview, size = ApprovalArgs(huge)
	assert.Nil(t, full)
	assert.LessOrEqual(t, len(preview), MaxApprovalPreviewBytes)
	assert.True(t, strings.HasPrefix(preview, `{"body":"xxx`))
	assert.Equal(t, len(huge), size)
}

// TestCheckpointCarriesApprovalsWhole: pending approvals, their ids and
// the decisions made survive continue-as-new as they were.
func TestCheckpointCarriesApprovalsWhole(t *testing.T) {
	since := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	remind := since.Add(time.Hour)
	args, preview, size := ApprovalArgs(json.RawMessage(`{"title":"Fix the bug"}`))
	cp := Checkpoint{
		ExecutionState: ExecutionState{Plan: &plan.Plan{ID: "p", Version: 2}, Budget: &Budget{MaxTokens: 9000}},
		ApprovalState: ApprovalState{
			Approvals: []ToolApproval{{
				RequestID: "approval-3", StepID: "s2", Tool: "mcp__github__create_issue", Args: args, ArgsPreview: preview,
				ArgsBytes: size, ArgsDigest: digest, PlanVersion: 2, Why: "worker rule 1 (mcp__github__* -> ask)",
				Since: since, RemindAt: &remind, Reminded: true, Deadline: since.Add(24 * time.Hour), OnTimeout: ApprovalTimeoutPause,
			}},
			ApprovalSeq: 3,
			ApprovalDecisions: []ApprovalDecision{{RequestID: "approval-1", Decision: DecisionTimedOut, By: "timeout",
				Reason: "no decision in 24h: deny", At: since, Auto: true}},
			ApprovalDecisionsDropped: 1,
		},
	}
	b, err := json.Marshal(cp)
	require.NoError(t, err)
	var back Checkpoint
	require.NoError(t, json.Unmarshal(b, &back))
	assert.Equal(t, cp, back)
	req := StartRequest{Goal: "g", Checkpoint: &back}
	assert.NoError(t, req.Validate())
}
