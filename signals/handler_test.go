package signals

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	sdktest "go.temporal.io/sdk/testsuite"
	"go.temporal.io/sdk/workflow"

	"github.com/planmode/planmode/plan"
)

// handlerResult is what handlerWorkflow saw: the selections its update
// handler applied and the signals Decode refused.
type handlerResult struct {
	Selected []string `json:"selected"`
	Refused  []string `json:"refused"`
}

// handlerWorkflow registers select-option as an update and a signal,
// rollback as an update, and ends when a pause update arrives.
func handlerWorkflow(ctx workflow.Context) (handlerResult, error) {
	var res handlerResult
	done := false
	err := SelectOption.SetUpdateHandler(ctx,
		func(_ workflow.Context, req SelectOptionRequest) (SelectOptionResponse, error) {
			res.Selected = append(res.Selected, req.OptionID)
			return SelectOptionResponse{Option: plan.Option{ID: req.OptionID}}, nil
		},
		func(workflow.Context, SelectOptionRequest) error { return nil })
	if err != nil {
		return res, err
	}
	err = Rollback.SetUpdateHandler(ctx,
		func(workflow.Context, RollbackRequest) (RollbackResponse, error) {
			return RollbackResponse{Restored: []string{"a.go"}}, nil
		}, nil)
	if err != nil {
		return res, err
	}
	err = Pause.SetUpdateHandler(ctx,
		func(workflow.Context, ControlRequest) (ControlState, error) {
			done = true
			return ControlState{Paused: true}, nil
		},
		func(workflow.Context, ControlRequest) error { return nil })
	if err != nil {
		return res, err
	}
	ch := SelectOption.Channel(ctx)
	workflow.Go(ctx, func(ctx workflow.Context) {
		for {
			var raw json.RawMessage
			ch.Receive(ctx, &raw)
			if _, err := SelectOption.Decode(raw); err != nil {
				res.Refused = append(res.Refused, err.Error())
			}
		}
	})
	err = workflow.Await(ctx, func() bool { return done })
	return res, err
}

// updateOutcome is the answer to one update sent through the test
// environment.
type updateOutcome struct {
	done     bool
	rejected error
	value    any
}

func sendUpdate(env *sdktest.TestWorkflowEnvironment, name string, args ...any) *updateOutcome {
	out := &updateOutcome{}
	env.UpdateWorkflow(name, "", &sdktest.TestUpdateCallback{
		OnReject:   func(err error) { out.done, out.rejected = true, err },
		OnAccept:   func() {},
		OnComplete: func(v any, err error) { out.done, out.value = true, v },
	}, args...)
	return out
}

func TestUpdatesAreDecodedStrictly(t *testing.T) {
	var s sdktest.WorkflowTestSuite
	env := s.NewTestWorkflowEnvironment()
	env.RegisterWorkflow(handlerWorkflow)
	sent := map[string]*updateOutcome{}
	env.RegisterDelayedCallback(func() {
		sent["unknown field"] = sendUpdate(env, SelectOption.Name, json.RawMessage(`{"optionId":"r1-o1","extra":1}`))
		sent["misspelt field"] = sendUpdate(env, SelectOption.Name, map[string]any{"optionID_": "r1-o1"})
		sent["both"] = sendUpdate(env, SelectOption.Name, SelectOptionRequest{OptionID: "r1-o1", Rank: 2})
		sent["too long"] = sendUpdate(env, SelectOption.Name, SelectOptionRequest{Rank: 1, Feedback: string(make([]byte, MaxTextBytes+1))})
		sent["good"] = sendUpdate(env, SelectOption.Name, SelectOptionRequest{OptionID: "r1-o2", Feedback: "fine"})
		sent["rollback with a field"] = sendUpdate(env, Rollback.Name, map[string]any{"force": true})
		sent["rollback with no payload"] = sendUpdate(env, Rollback.Name)
		sent["rollback"] = sendUpdate(env, Rollback.Name, RollbackRequest{})
	}, time.Second)
	env.RegisterDelayedCallback(func() {
		env.SignalWorkflow(SelectOption.Name, json.RawMessage(`{"rank":1,"extra":true}`))
		env.SignalWorkflow(SelectOption.Name, SelectOptionRequest{OptionID: "r1-o1", Rank: 1})
		env.SignalWorkflow(SelectOption.Name, SelectOptionRequest{Rank: 3})
	}, 2*time.Second)
	env.RegisterDelayedCallback(func() { sent["pause"] = sendUpdate(env, Pause.Name, ControlRequest{}) }, 3*time.Second)
	env.ExecuteWorkflow(handlerWorkflow)
	require.True(t, env.IsWorkflowCompleted())
	require.NoError(t, env.GetWorkflowError())

	rejected := map[string]string{
		"unknown field":         `rejected: select-option: bad payload: json: unknown field "extra"`,
		"misspelt field":        `unknown field "optionID_"`,
		"both":                  `rejected: select-option: optionId "r1-o1" and rank 2 are both given: give one`,
		"too long":              "feedback is 4097 bytes: at most 4096 bytes",
		"rollback with a field": `rejected: rollback: bad payload: json: unknown field "force"`,
	}
	for name, want := range rejected {
		o := sent[name]
		require.True(t, o.done, name)
		require.Error(t, o.rejected, name)
		assert.Contains(t, o.rejected.Error(), want, name)
	}
	for _, name := range []string{"good", "rollback with no payload", "rollback", "pause"} {
		o := sent[name]
		require.True(t, o.done, name)
		assert.NoError(t, o.rejected, name)
	}
	assert.Equal(t, SelectOptionResponse{Option: plan.Option{ID: "r1-o2"}}, sent["good"].value)

	var res handlerResult
	require.NoError(t, env.GetWorkflowResult(&res))
	assert.Equal(t, []string{"r1-o2"}, res.Selected, "only the accepted update reached the handler")
	require.Len(t, res.Refused, 2, "the good signal decodes")
	assert.Contains(t, res.Refused[0], `unknown field "extra"`)
	assert.Contains(t, res.Refused[1], "are both given")
}

func TestDecode(t *testing.T) {
	cases := []struct {
		raw     string
		want    EditPlanRequest
		wantErr string
	}{
		{raw: `{"edits":[{"op":"remove","stepId":"s2"}],"reason":"r"}`,
			want: EditPlanRequest{Edits: []plan.Edit{{Op: plan.OpRemove, StepID: "s2"}}, Reason: "r"}},
		{raw: ``, want: EditPlanRequest{}},
		{raw: ` null `, want: EditPlanRequest{}},
		{raw: `{"edits":[]} {"reason":"x"}`, wantErr: "data after the JSON value"},
		{raw: `{"edits":[{"op":"remove","stepId":"s2","step":{"title":"t"}}]}`, wantErr: "edit 1: INVALID_EDIT: step \"s2\": remove takes no step"},
		{raw: `{"edits":[{"op":"append","step":{"title":"t","colour":"red"}}]}`, wantErr: `unknown field "colour"`},
		{raw: `{"edits":[{"op":"append","step":{"title":"t","retryDelay":5}}]}`, wantErr: `duration 5 has no unit`},
		{raw: `[1,2]`, wantErr: "edit-plan: bad payload"},
	}
	for _, tc := range cases {
		got, err := EditPlan.Decode(json.RawMessage(tc.raw))
		if tc.wantErr != "" {
			assert.ErrorContains(t, err, tc.wantErr, tc.raw)
			continue
		}
		require.NoError(t, err, tc.raw)
		assert.Equal(t, tc.want, got, tc.raw)
	}
}

func TestDecodeLenientIgnoresUnknownFields(t *testing.T) {
	req, err := decodeLenient[SelectOptionRequest](json.RawMessage(`{"optionId":"a","extra":1}`))
	require.NoError(t, err)
	assert.Equal(t, SelectOptionRequest{OptionID: "a"}, req, "updates accepted before strict decoding replay as they ran")
}
