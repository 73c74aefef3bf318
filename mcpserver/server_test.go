package mcpserver

import (
	"context"
	"encoding/json"
	"slices"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/planmode/planmode/planclient"
	"github.com/planmode/planmode/signals"
)

// allTools are the tools the contract names.
var allTools = []string{ToolStart, ToolStatus, ToolOptions, ToolSelect, ToolRefine, ToolAnswer, ToolConfirmSkip,
	ToolApprove, ToolDeny, ToolRaiseBudget, ToolEdit, ToolControl, ToolResult, ToolList, ToolApprovals, ToolRollback, ToolFork}

func TestToolsAreTheContractsOperationsWithSchemasAndHints(t *testing.T) {
	cs := connect(t, newFakePlans(), WithCaller(alice))
	res, err := cs.ListTools(context.Background(), nil)
	require.NoError(t, err)
	byName := map[string]*mcp.Tool{}
	for _, tl := range res.Tools {
		byName[tl.Name] = tl
	}
	names := make([]string, 0, len(byName))
	for n := range byName {
		names = append(names, n)
	}
	assert.ElementsMatch(t, allTools, names)

	readOnly := []string{ToolStatus, ToolOptions, ToolResult, ToolList, ToolApprovals}
	destructive := []string{ToolControl, ToolRollback}
	for _, name := range allTools {
		tl := byName[name]
		require.NotNil(t, tl, name)
		assert.NotEmpty(t, tl.Description, name)
		in := tl.InputSchema.(map[string]any)
		assert.Equal(t, "object", in["type"], name)
		assert.Equal(t, false, in["additionalProperties"], "%s refuses arguments it does not know", name)
		props, _ := in["properties"].(map[string]any)
		assert.NotContains(t, props, "by", "%s: the caller is the transport's to name, never an argument", name)
		for p, ps := range props {
			_, isObject := ps.(map[string]any)
			assert.True(t, isObject, "%s: property %s's schema is an object (clients refuse a boolean schema): %v", name, p, ps)
		}
		require.NotNil(t, tl.OutputSchema, "%s answers structured content", name)
		require.NotNil(t, tl.Annotations, name)
		assert.Equal(t, slices.Contains(readOnly, name), tl.Annotations.ReadOnlyHint, "%s readOnlyHint", name)
		if slices.Contains(destructive, name) {
			require.NotNil(t, tl.Annotations.DestructiveHint, name)
			assert.True(t, *tl.Annotations.DestructiveHint, "%s destructiveHint", name)
		}
	}
	for _, name := range []string{ToolSelect, ToolDeny, ToolStatus, ToolControl} {
		props := byName[name].InputSchema.(map[string]any)["properties"].(map[string]any)
		assert.Contains(t, props, "planId", name)
		assert.Contains(t, byName[name].InputSchema.(map[string]any)["required"], "planId", name)
	}
	// The payload's own fields, derived from its Go type.
	sel := byName[ToolSelect].InputSchema.(map[string]any)["properties"].(map[string]any)
	assert.Contains(t, sel, "optionId")
	assert.Contains(t, sel, "rank")
	assert.Contains(t, sel, "feedback")
	start := byName[ToolStart].InputSchema.(map[string]any)
	assert.Contains(t, start["properties"], "goal")
	assert.Contains(t, start["properties"], "template")
	assert.NotContains(t, start["properties"], "checkpoint", "a run's state is never a caller's to send")
	assert.Empty(t, start["required"], "goal may be empty for a fork: Validate judges")
	action := byName[ToolControl].InputSchema.(map[string]any)["properties"].(map[string]any)["action"].(map[string]any)
	assert.ElementsMatch(t, []any{"pause", "resume", "cancel"}, action["enum"])
	out := byName[ToolResult].OutputSchema.(map[string]any)["properties"].(map[string]any)
	assert.Contains(t, out, "summary")
	assert.Contains(t, out, "status")
}

func TestEachToolAnswersAndNamesItsCaller(t *testing.T) {
	f := newFakePlans()
	f.add("p1", "")
	cs := connect(t, f, WithCaller(alice))
	tests := []struct {
		tool string
		args map[string]any
		op   string
		want func(t *testing.T, res *mcp.CallToolResult)
	}{
		{ToolSelect, map[string]any{"planId": "p1", "rank": 1, "feedback": "fine"}, signals.SelectOption.Name,
			func(t *testing.T, res *mcp.CallToolResult) {
				var v signals.SelectOptionResponse
				ok(t, res, &v)
				assert.Equal(t, "r1-o1", v.Option.ID)
			}},
		{ToolRefine, map[string]any{"planId": "p1", "feedback": "cheaper"}, signals.RefinePlan.Name,
			func(t *testing.T, res *mcp.CallToolResult) {
				var v signals.OptionsView
				ok(t, res, &v)
				assert.Len(t, v.Options, 1)
			}},
		{ToolAnswer, map[string]any{"planId": "p1", "answers": map[string]string{"Which DB?": "Postgres"}},
			signals.AnswerClarification.Name, func(t *testing.T, res *mcp.CallToolResult) {
				var v signals.ClarificationResponse
				ok(t, res, &v)
				assert.Equal(t, 1, v.Accepted)
			}},
		{ToolConfirmSkip, map[string]any{"planId": "p1", "requestId": "skip-1", "approve": true}, signals.ConfirmSkip.Name,
			func(t *testing.T, res *mcp.CallToolResult) {
				var v signals.ConfirmSkipResponse
				ok(t, res, &v)
				assert.True(t, v.Approved)
			}},
		{ToolApprove, map[string]any{"planId": "p1", "requestId": "ap-1", "planVersion": 1, "args": map[string]any{"path": "b.go"}},
			signals.ApproveToolCall.Name, func(t *testing.T, res *mcp.CallToolResult) {
				var v signals.ApprovalDecision
				ok(t, res, &v)
				assert.Equal(t, signals.DecisionApproved, v.Decision)
				assert.Equal(t, "alice", v.By)
			}},
		{ToolDeny, map[string]any{"planId": "p1", "requestId": "ap-1", "reason": "not that file"}, signals.DenyToolCall.Name,
			func(t *testing.T, res *mcp.CallToolResult) {
				var v signals.ApprovalDecision
				ok(t, res, &v)
				assert.Equal(t, signals.DecisionDenied, v.Decision)
			}},
		{ToolRaiseBudget, map[string]any{"planId": "p1", "maxTokens": 5000, "reason": "more"}, signals.RaiseBudget.Name,
			func(t *testing.T, res *mcp.CallToolResult) {
				var v signals.RaiseBudgetResponse
				ok(t, res, &v)
				assert.Equal(t, 5000, v.Budget.MaxTokens)
			}},
		{ToolEdit, map[string]any{"planId": "p1", "reason": "one more", "edits": []any{map[string]any{"op": "append",
			"step": map[string]any{"id": "s9", "title": "Document it", "action": "llm", "config": map[string]any{"llm": map[string]any{"prompt": "write docs"}}}}}},
			signals.EditPlan.Name, func(t *testing.T, res *mcp.CallToolResult) {
				var v signals.EditPlanResponse
				ok(t, res, &v)
				assert.Equal(t, 2, v.Version)
			}},
		{ToolControl, map[string]any{"planId": "p1", "action": "pause", "reason": "review"}, signals.Pause.Name,
			func(t *testing.T, res *mcp.CallToolResult) {
				var v controlOutput
				ok(t, res, &v)
				require.NotNil(t, v.State)
				assert.True(t, v.State.Paused)
			}},
		{ToolControl, map[string]any{"planId": "p1", "action": "resume"}, signals.Resume.Name,
			func(t *testing.T, res *mcp.CallToolResult) {
				var v controlOutput
				ok(t, res, &v)
				assert.False(t, v.State.Paused)
			}},
		{ToolRollback, map[string]any{"planId": "p1", "stepId": "s1"}, signals.Rollback.Name,
			func(t *testing.T, res *mcp.CallToolResult) {
				var v signals.RollbackPlanResult
				ok(t, res, &v)
				assert.Equal(t, []string{"a.go"}, v.Restored)
				assert.Equal(t, "Running", v.PlanStatus)
			}},
		{ToolControl, map[string]any{"planId": "p1", "action": "cancel"}, "cancel",
			func(t *testing.T, res *mcp.CallToolResult) {
				var v controlOutput
				ok(t, res, &v)
				assert.True(t, v.CancelRequested)
			}},
	}
	for _, tc := range tests {
		t.Run(tc.tool+" "+tc.op, func(t *testing.T) {
			before := len(f.recorded())
			tc.want(t, callTool(t, cs, tc.tool, tc.args))
			calls := f.recorded()[before:]
			require.Len(t, calls, 1, "one operation on the plan")
			assert.Equal(t, tc.op, calls[0].op)
			assert.Equal(t, "p1", calls[0].id)
			by := json.RawMessage(mustJSON(t, calls[0].req))
			var named struct{ By string }
			require.NoError(t, json.Unmarshal(by, &named))
			assert.Equal(t, "alice", named.By, "the input names the caller")
		})
	}
}

func mustJSON(t *testing.T, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	require.NoError(t, err)
	return b
}

func TestReadsAnswerWhatThePlanSays(t *testing.T) {
	f := newFakePlans()
	f.add("p1", "")
	cs := connect(t, f, WithCaller(alice))

	var st statusOutput
	ok(t, callTool(t, cs, ToolStatus, map[string]any{"planId": "p1"}), &st)
	assert.Equal(t, planclient.SourceQuery, st.Standing.Source)
	require.NotNil(t, st.Pending, "a plan that answers says what it waits for")
	assert.Equal(t, "ap-1", st.Pending.Approvals[0].RequestID)

	var opts signals.OptionsView
	ok(t, callTool(t, cs, ToolOptions, map[string]any{"planId": "p1"}), &opts)
	assert.Equal(t, "r1-o1", opts.RecommendedID)

	var inbox planclient.Inbox
	ok(t, callTool(t, cs, ToolApprovals, map[string]any{"planId": "p1"}), &inbox)
	require.Len(t, inbox.Approvals, 1)
	assert.Equal(t, "p1", inbox.Approvals[0].WorkflowID)

	var list listOutput
	ok(t, callTool(t, cs, ToolList, map[string]any{"phase": "awaiting-selection"}), &list)
	require.Len(t, list.Plans, 1)
	assert.Equal(t, "p1", list.Plans[0].PlanID)
	assert.Equal(t, "Goal of p1", list.Plans[0].Goal)
	calls := f.recorded()
	query := calls[len(calls)-1].req.(string)
	assert.Contains(t, query, "TaskQueue = 'planmode'", "the plans of this server's task queue")
	assert.Contains(t, query, "PlanPhase = 'awaiting-selection'")

	res := callTool(t, cs, ToolResult, map[string]any{"planId": "p1"})
	assert.Contains(t, refused(t, res), "still running")
	res = callTool(t, cs, ToolResult, map[string]any{"planId": "p1", "wait": "10ms"})
	assert.Contains(t, refused(t, res), "still running", "an open plan waited for briefly")
	f.done("p1")
	var r signals.Result
	ok(t, callTool(t, cs, ToolResult, map[string]any{"planId": "p1"}), &r)
	assert.Equal(t, signals.StatusCompleted, r.Status)

	var rb signals.RollbackPlanResult
	ok(t, callTool(t, cs, ToolRollback, map[string]any{"planId": "p1", "force": true}), &rb)
	assert.Equal(t, "Completed", rb.PlanStatus, "an ended plan is rolled back beside it")
	last := f.recorded()[len(f.recorded())-1]
	assert.Equal(t, "rollback-ended", last.op)
	assert.True(t, last.req.(signals.RollbackPlanRequest).Force)
}

func TestStartAndForkStartPlans(t *testing.T) {
	f := newFakePlans()
	f.add("parent", "")
	cs := connect(t, f, WithCaller(alice))
	var out startOutput
	ok(t, callTool(t, cs, ToolStart, map[string]any{"planId": "plan-42", "goal": "Add JWT authentication",
		"template": "feature", "selection": map[string]any{"mode": "auto"}, "execution": map[string]any{"confirmTimeout": "1h"}}), &out)
	assert.Equal(t, "plan-42", out.PlanID)
	assert.Equal(t, "run-plan-42", out.RunID)
	req := f.recorded()[0].req.(signals.StartRequest)
	assert.Equal(t, "feature", req.Template)
	assert.Equal(t, signals.SelectAuto, req.Selection.Mode)
	assert.Equal(t, time.Hour, req.Execution.ConfirmTimeout.D(), "durations travel as Go duration strings")

	ok(t, callTool(t, cs, ToolFork, map[string]any{"planId": "parent", "stepId": "s1", "newPlanId": "child"}), &out)
	assert.Equal(t, "child", out.PlanID)
	fork := f.recorded()[1].req.(signals.StartRequest)
	require.NotNil(t, fork.Fork)
	assert.Equal(t, signals.ForkRef{PlanID: "parent", StepID: "s1"}, *fork.Fork)

	res := callTool(t, cs, ToolFork, map[string]any{"planId": "nope", "stepId": "s1"})
	assert.Equal(t, "no plan nope", refused(t, res))
}
