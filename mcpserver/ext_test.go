package mcpserver

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/planmode/planmode/plan"
	"github.com/planmode/planmode/signals"
)

// extMeta is the _meta of a request whose client declares the tasks
// extension.
func extMeta() map[string]any {
	return map[string]any{clientCapsKey: map[string]any{"extensions": map[string]any{ExtTasks: map[string]any{}}}}
}

// withExt is params with extMeta as _meta.
func withExt(params map[string]any) map[string]any {
	params["_meta"] = extMeta()
	return params
}

// extTaskOf decodes an extension client's task.
func extTaskOf(t *testing.T, a rawAnswer) extTask {
	t.Helper()
	require.Nil(t, a.Error, "an answer, not an error: %+v", a.Error)
	var task extTask
	require.NoError(t, json.Unmarshal(a.Result, &task), string(a.Result))
	return task
}

// refusedWith requires a to be the JSON-RPC error code and returns its
// message.
func refusedWith(t *testing.T, a rawAnswer, code int) string {
	t.Helper()
	require.NotNil(t, a.Error, "an error, not an answer: %s", a.Result)
	assert.Equal(t, code, a.Error.Code, a.Error.Message)
	return a.Error.Message
}

// TestExtTaskLifecycle: a client that declares the extension starts a
// plan and gets its task handle, sees the selection as an input request,
// answers it with tasks/update as its caller, and finds the result
// inline in tasks/get; it has no tasks/result nor tasks/list.
func TestExtTaskLifecycle(t *testing.T) {
	f := newFakePlans()
	f.endOnSelect = true
	url := serveMCP(t, f)

	a := send(t, url, teamAToken, "initialize", map[string]any{"protocolVersion": "2025-11-25",
		"capabilities": map[string]any{}, "clientInfo": map[string]any{"name": "t", "version": "0"}})
	require.Nil(t, a.Error)
	assert.Contains(t, string(a.Result), `"extensions":{"`+ExtTasks+`":{}}`)

	a = send(t, url, teamAToken, "tools/call", withExt(map[string]any{"name": ToolStart,
		"arguments": map[string]any{"goal": "Add JWT authentication"}}))
	created := extTaskOf(t, a)
	assert.Equal(t, resultTask, created.ResultType)
	assert.Equal(t, "plan-1", created.TaskID)
	assert.Equal(t, TaskWorking, created.Status)
	assert.Equal(t, DefaultTaskTTL.Milliseconds(), created.TTLMs)
	assert.Contains(t, string(a.Result), `"ttlMs":`)
	assert.Contains(t, string(a.Result), `"pollIntervalMs":1000`)

	f.mu.Lock()
	p := f.plans["plan-1"]
	p.details, p.phase, p.awaiting = "## Plan", plan.PhaseAwaitingSelection, signals.AwaitingSelection
	f.mu.Unlock()
	got := extTaskOf(t, send(t, url, teamAToken, MethodTasksGet, withExt(map[string]any{"taskId": "plan-1"})))
	assert.Equal(t, resultComplete, got.ResultType)
	assert.Equal(t, TaskInputRequired, got.Status)
	require.Contains(t, got.InputRequests, "selection-r1", "keyed by the options' revision")
	req := got.InputRequests["selection-r1"]
	assert.Equal(t, methodElicit, req.Method)
	assert.Equal(t, "form", req.Params.Mode)
	assert.Contains(t, fmt.Sprint(req.Params.RequestedSchema), "optionId")

	again := extTaskOf(t, send(t, url, teamAToken, MethodTasksGet, withExt(map[string]any{"taskId": "plan-1"})))
	assert.Equal(t, got.InputRequests, again.InputRequests, "the same question, the same key")

	a = send(t, url, teamAToken, MethodTasksUpdate, withExt(map[string]any{"taskId": "plan-1",
		"inputResponses": map[string]any{"selection-r1": map[string]any{"action": "accept", "content": map[string]any{"optionId": "r1-o1"}}}}))
	require.Nil(t, a.Error, string(a.Result))
	assert.JSONEq(t, `{"resultType":"complete"}`, string(a.Result))
	calls := f.recorded()
	last := calls[len(calls)-1]
	assert.Equal(t, signals.SelectOption.Name, last.op)
	assert.Equal(t, "dashboard", last.req.(signals.SelectOptionRequest).By, "the caller is the input's by")
	assert.Equal(t, "r1-o1", last.req.(signals.SelectOptionRequest).OptionID)

	done := extTaskOf(t, send(t, url, teamAToken, MethodTasksGet, withExt(map[string]any{"taskId": "plan-1"})))
	assert.Equal(t, TaskCompleted, done.Status)
	require.NotNil(t, done.Result)
	assert.False(t, done.Result.IsError)
	assert.Contains(t, string(mustJSON(t, done.Result.StructuredContent)), `"status":"completed"`)
	assert.Empty(t, done.InputRequests)

	for _, m := range []string{MethodTasksResult, MethodTasksList} {
		// The SDK words a method-not-found itself.
		refusedWith(t, send(t, url, teamAToken, m, withExt(map[string]any{"taskId": "plan-1"})), -32601)
	}
	msg := refusedWith(t, send(t, url, teamAToken, MethodTasksUpdate, map[string]any{"taskId": "plan-1",
		"inputResponses": map[string]any{}}), codeMissingCapability)
	assert.Contains(t, msg, ExtTasks)
}

// TestExtUpdateRefusesWhatDoesNotFit: answers of the wrong shape, the
// plan's refusal and oversized updates are invalid params that say why,
// and send the plan nothing (or nothing it took); answers under keys the
// task does not wait for are ignored.
func TestExtUpdateRefusesWhatDoesNotFit(t *testing.T) {
	f := newFakePlans()
	f.add("ours", "team-a").awaiting = signals.AwaitingSelection
	url := serveMCP(t, f)
	update := func(responses any) rawAnswer {
		return send(t, url, teamAToken, MethodTasksUpdate, withExt(map[string]any{"taskId": "ours", "inputResponses": responses}))
	}
	answer := func(v any) map[string]any { return map[string]any{"selection-r1": v} }
	for _, tc := range []struct {
		name      string
		responses any
		want      string
	}{
		{"no answers", nil, "inputResponses: required"},
		{"answers that are no object", "r1-o1", "inputResponses"},
		{"an answer that is no result", answer("r1-o1"), "want an elicitation result"},
		{"an unknown action", answer(map[string]any{"action": "maybe"}), `"maybe", want accept, decline or cancel`},
		{"a number for a string", answer(map[string]any{"action": "accept", "content": map[string]any{"optionId": 5}}), "want a string"},
		{"no such option", answer(map[string]any{"action": "accept", "content": map[string]any{"optionId": "r9-o9"}}), "none of the form's choices"},
		{"a field the form lacks", answer(map[string]any{"action": "accept", "content": map[string]any{"optionId": "r1-o1", "rank": "1"}}), "no field of the form"},
		{"a required field left out", answer(map[string]any{"action": "accept", "content": map[string]any{}}), `"optionId" is required`},
		{"too many answers", manyAnswers(MaxInputResponses + 1), "at most 16"},
		{"an oversized answer", answer(map[string]any{"action": "accept", "content": map[string]any{"feedback": strings.Repeat("x", MaxInputResponseBytes)}}), "bytes, at most"},
	} {
		msg := refusedWith(t, update(tc.responses), -32602)
		assert.Contains(t, msg, tc.want, tc.name)
	}
	assert.Empty(t, f.recorded(), "nothing reached the plan")

	a := update(map[string]any{"selection-r0": map[string]any{"action": "accept", "content": map[string]any{"optionId": "r1-o1"}},
		"approval-x": map[string]any{"action": "accept"}})
	require.Nil(t, a.Error, "answers to questions not asked are ignored")
	assert.Empty(t, f.recorded())

	f.mu.Lock()
	f.refuse[signals.SelectOption.Name] = "the option was dropped"
	f.mu.Unlock()
	msg := refusedWith(t, update(answer(map[string]any{"action": "accept", "content": map[string]any{"optionId": "r1-o1"}})), -32602)
	assert.Contains(t, msg, "the plan refused the answer")
	assert.Contains(t, msg, "the option was dropped")
	assert.Contains(t, msg, "still waits")
	got := extTaskOf(t, send(t, url, teamAToken, MethodTasksGet, withExt(map[string]any{"taskId": "ours"})))
	assert.Equal(t, TaskInputRequired, got.Status)
	assert.Contains(t, got.InputRequests, "selection-r1", "the refused question is asked again under its key")
}

// manyAnswers is n answers under distinct keys.
func manyAnswers(n int) map[string]any {
	m := map[string]any{}
	for i := range n {
		m[fmt.Sprintf("k%d", i)] = map[string]any{"action": "cancel"}
	}
	return m
}

// TestExtMethodsRefuseForeignAndUnknownTasks: another tenant's task is
// as unknown as one no plan has, for every method of the extension; a
// cancel names its caller.
func TestExtMethodsRefuseForeignAndUnknownTasks(t *testing.T) {
	f := newFakePlans()
	f.add("theirs", "team-b")
	f.add("ours", "team-a")
	url := serveMCP(t, f)
	for _, id := range []string{"theirs", "nobody"} {
		for _, m := range []string{MethodTasksGet, MethodTasksCancel, MethodTasksUpdate} {
			params := withExt(map[string]any{"taskId": id})
			if m == MethodTasksUpdate {
				params["inputResponses"] = map[string]any{}
			}
			msg := refusedWith(t, send(t, url, teamAToken, m, params), -32602)
			assert.Contains(t, msg, "task not found", "%s %s", m, id)
		}
	}
	for _, bad := range []any{"", strings.Repeat("x", 300), 7} {
		refusedWith(t, send(t, url, teamAToken, MethodTasksGet, withExt(map[string]any{"taskId": bad})), -32602)
	}
	assert.Empty(t, f.recorded())

	a := send(t, url, teamAToken, MethodTasksCancel, withExt(map[string]any{"taskId": "ours"}))
	require.Nil(t, a.Error)
	assert.JSONEq(t, `{"resultType":"complete"}`, string(a.Result))
	assert.Equal(t, []call{{op: "cancel", id: "ours", req: signals.ControlRequest{By: "dashboard", Reason: "cancelled with tasks/cancel"}}}, f.recorded())
}
