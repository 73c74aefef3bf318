package mcpserver

import (
	"context"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/planmode/planmode/planclient"
	"github.com/planmode/planmode/signals"
)

func TestRefusalsAreToolErrorsWithTheContractsReason(t *testing.T) {
	f := newFakePlans()
	f.add("p1", "")
	f.refuse[signals.SelectOption.Name] = "not awaiting a selection"
	f.refuse[signals.ApproveToolCall.Name] = "approval of ap-1 is stale: the plan is at version 3"
	cs := connect(t, f, WithCaller(alice))
	tests := []struct {
		name, tool string
		args       map[string]any
		want       string
	}{
		{"wrong phase", ToolSelect, map[string]any{"planId": "p1", "rank": 1}, "plan p1: update select-option: rejected: not awaiting a selection"},
		{"stale approval", ToolApprove, map[string]any{"planId": "p1", "requestId": "ap-1"}, "rejected: approval of ap-1 is stale"},
		{"unknown plan", ToolSelect, map[string]any{"planId": "nope", "rank": 1}, "no plan nope"},
		{"unknown plan read", ToolStatus, map[string]any{"planId": "nope"}, "no plan nope"},
		{"payload bound", ToolRefine, map[string]any{"planId": "p1", "feedback": strings.Repeat("x", signals.MaxTextBytes+1)}, "feedback is 4097 bytes"},
		{"payload contradiction", ToolSelect, map[string]any{"planId": "p1", "rank": 1, "optionId": "r1-o2"}, "give one"},
		{"missing plan id", ToolOptions, map[string]any{}, "planId"},
		{"empty plan id", ToolOptions, map[string]any{"planId": " "}, "planId is required"},
		{"plan id bound", ToolOptions, map[string]any{"planId": strings.Repeat("p", signals.MaxWorkflowIDBytes+1)}, "at most 1000"},
		{"wrong type", ToolSelect, map[string]any{"planId": "p1", "rank": "first"}, "rank"},
		{"unknown argument", ToolSelect, map[string]any{"planId": "p1", "rank": 1, "colour": "red"}, "colour"},
		{"a caller named in the arguments", ToolDeny, map[string]any{"planId": "p1", "requestId": "ap-1", "reason": "no", "by": "mallory"}, "by"},
		{"unknown action", ToolControl, map[string]any{"planId": "p1", "action": "terminate"}, "action"},
		{"a run's state", ToolStart, map[string]any{"goal": "x", "checkpoint": map[string]any{}}, "checkpoint"},
		{"invalid start", ToolStart, map[string]any{"goal": "x", "optionCount": 9}, "optionCount"},
		{"bad duration", ToolStart, map[string]any{"goal": "x", "selection": map[string]any{"timeout": "90"}}, "90"},
		{"list limit", ToolList, map[string]any{"limit": 500}, "limit 500"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			before := len(f.recorded())
			assert.Contains(t, refused(t, callTool(t, cs, tc.tool, tc.args)), tc.want)
			assert.Len(t, f.recorded(), before, "a refused call changes nothing")
		})
	}
	_, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "plan_terminate", Arguments: map[string]any{}})
	require.Error(t, err, "an unknown tool is MCP's to refuse")
	assert.Contains(t, err.Error(), "unknown tool")
	var st statusOutput
	ok(t, callTool(t, cs, ToolStatus, map[string]any{"planId": "p1"}), &st)
}

func TestACallerLimitedToTenantsSeesOnlyTheirPlans(t *testing.T) {
	f := newFakePlans()
	f.add("ours", "team-a")
	f.add("theirs", "team-b")
	cs := connect(t, f, WithCaller(Caller{Identity: "dashboard", Tenants: []string{"team-a"}}))

	for _, tc := range []struct {
		tool string
		args map[string]any
	}{
		{ToolStatus, map[string]any{"planId": "theirs"}},
		{ToolOptions, map[string]any{"planId": "theirs"}},
		{ToolSelect, map[string]any{"planId": "theirs", "rank": 1}},
		{ToolControl, map[string]any{"planId": "theirs", "action": "cancel"}},
		{ToolRollback, map[string]any{"planId": "theirs"}},
		{ToolResult, map[string]any{"planId": "theirs"}},
		{ToolApprovals, map[string]any{"planId": "theirs"}},
		{ToolFork, map[string]any{"planId": "theirs", "stepId": "s1"}},
		{ToolStart, map[string]any{"goal": "x", "fork": map[string]any{"planId": "theirs", "stepId": "s1"}}},
	} {
		assert.Equal(t, "no plan theirs", refused(t, callTool(t, cs, tc.tool, tc.args)), tc.tool)
	}
	assert.Equal(t, "no plan nope", refused(t, callTool(t, cs, ToolStatus, map[string]any{"planId": "nope"})),
		"an unknown plan reads as another tenant's")
	assert.Empty(t, f.recorded(), "nothing was asked of another tenant's plan")

	var list listOutput
	ok(t, callTool(t, cs, ToolList, map[string]any{}), &list)
	require.Len(t, list.Plans, 1)
	assert.Equal(t, "ours", list.Plans[0].PlanID)

	var inbox planclient.Inbox
	ok(t, callTool(t, cs, ToolApprovals, map[string]any{}), &inbox)
	require.Len(t, inbox.Approvals, 1)
	assert.Equal(t, "ours", inbox.Approvals[0].WorkflowID)

	var out startOutput
	ok(t, callTool(t, cs, ToolStart, map[string]any{"goal": "Ours"}), &out)
	assert.Equal(t, "team-a", f.plans[out.PlanID].tenant, "a plan started for the caller's tenant")
	res := callTool(t, cs, ToolStart, map[string]any{"goal": "Theirs", "tenant": "team-b"})
	assert.Contains(t, refused(t, res), `tenant "team-b"`)
}

func TestResourcesReadThePlan(t *testing.T) {
	f := newFakePlans()
	f.add("p1", "team-a")
	quiet := f.add("quiet", "team-a")
	quiet.details = ""
	selected := f.add("selected", "team-b")
	selected.phase = "executing"
	cs := connect(t, f, WithCaller(Caller{Identity: "dashboard", Tenants: []string{"team-a"}}))
	ctx := context.Background()

	tmpls, err := cs.ListResourceTemplates(ctx, nil)
	require.NoError(t, err)
	var uris []string
	for _, rt := range tmpls.ResourceTemplates {
		uris = append(uris, rt.URITemplate)
	}
	assert.ElementsMatch(t, []string{ResourceDetails, ResourceGraph}, uris)

	read := func(uri string) (string, error) {
		res, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: uri})
		if err != nil {
			return "", err
		}
		require.Len(t, res.Contents, 1)
		return res.Contents[0].Text, nil
	}
	md, err := read("plan://p1")
	require.NoError(t, err)
	assert.Equal(t, "## Plan p1\n\nWaiting for a selection.", md, "the details the plan keeps")
	md, err = read("plan://quiet")
	require.NoError(t, err)
	assert.Contains(t, md, "from search attributes", "a plan that does not answer is described from Temporal")
	_, err = read("plan://p1/graph")
	require.Error(t, err, "no plan is selected yet")
	assert.Contains(t, err.Error(), "no selected plan yet")
	_, err = read("plan://selected/graph")
	require.Error(t, err, "another tenant's plan")
	_, err = read("plan://nope")
	require.Error(t, err)

	all := connect(t, f, WithCaller(alice))
	res, err := all.ReadResource(ctx, &mcp.ReadResourceParams{URI: "plan://selected/graph"})
	require.NoError(t, err)
	assert.True(t, strings.HasPrefix(res.Contents[0].Text, "flowchart"), res.Contents[0].Text)
	assert.Equal(t, "text/vnd.mermaid", res.Contents[0].MIMEType)
}
