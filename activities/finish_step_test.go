package activities

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/planmode/planmode/internal/testkit"
	"github.com/planmode/planmode/llm"
	"github.com/planmode/planmode/outputs"
	"github.com/planmode/planmode/plan"
	"github.com/planmode/planmode/tools"
)

// agentTurnIn is turn it of 4 of an agent step that names only read_file.
func agentTurnIn(it int) AgentTurnInput {
	step := plan.Step{ID: "s2", Title: "Note", Action: plan.ActionAgent,
		Config: plan.StepConfig{Agent: &plan.AgentConfig{Prompt: "Note what a.go does", Tools: []string{"read_file"}}}}
	return AgentTurnInput{StepInput: StepInput{PlanID: "p1", Context: plan.StepContext{Step: step, Position: 1, Total: 2}},
		Iteration: it, MaxIterations: 4}
}

// finishCall is a finish_step call with raw arguments.
func finishCall(id, args string) ToolCall { return ToolCall{ID: id, Name: FinishStep, Arguments: args} }

func TestAgentTurnReadsFinishStep(t *testing.T) {
	long := strings.Repeat("é", tools.MaxStepAnswer) // twice the bytes allowed
	tests := []struct {
		name       string
		calls      []ToolCall
		want       string // the answer
		wantErr    string // else why it cannot end the step
		wantNoRead bool
	}{
		{name: "beside another call", want: "a.go sums the cart",
			calls: []ToolCall{{ID: "c1", Name: "write_file", Arguments: `{}`}, finishCall("c2", `{"answer":" a.go sums the cart "}`)}},
		{name: "alone", want: "nothing to change", calls: []ToolCall{finishCall("c1", `{"answer":"nothing to change"}`)}},
		{name: "malformed", wantErr: "malformed JSON", calls: []ToolCall{finishCall("c1", `{"answer" "done"}`)}},
		{name: "unknown argument", wantErr: `unknown argument "force"`,
			calls: []ToolCall{finishCall("c1", `{"answer":"done","force":true}`)}},
		{name: "no answer", wantErr: `missing argument "answer"`, calls: []ToolCall{finishCall("c1", `{}`)}},
		{name: "wrong type", wantErr: `invalid argument "answer": expected a string`, calls: []ToolCall{finishCall("c1", `{"answer":1}`)}},
		{name: "oversized", wantErr: "more than the 4000 finish_step takes: shorten it",
			calls: []ToolCall{finishCall("c1", `{"answer":"`+long+`"}`)}},
		{name: "twice", wantErr: "finish_step was called 2 times in one turn",
			calls: []ToolCall{finishCall("c1", `{"answer":"a"}`), finishCall("c2", `{"answer":"b"}`)}},
		{name: "none", wantNoRead: true, calls: []ToolCall{{ID: "c1", Name: "read_file", Arguments: `{"path":"a.go"}`}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a, _ := newScripted(calling(tt.calls...))
			out, err := a.AgentTurn(context.Background(), agentTurnIn(1))
			require.NoError(t, err, "a bad finish_step is the model's to correct, not a failed turn")
			assert.Equal(t, tt.calls, out.ToolCalls, "every call comes back, finish_step too")
			if tt.wantNoRead {
				assert.Nil(t, out.Finish)
				return
			}
			require.NotNil(t, out.Finish)
			assert.Equal(t, tt.want, out.Finish.Answer)
			if tt.wantErr == "" {
				assert.Empty(t, out.Finish.Error)
			} else {
				assert.Contains(t, out.Finish.Error, tt.wantErr)
			}
			assert.Empty(t, out.Finish.OutputRef, "no output store")
		})
	}
}

func TestAgentTurnKeepsALongFinishAnswerWhole(t *testing.T) {
	dir := t.TempDir()
	answer := "start " + strings.Repeat("x", plan.KeptOutputBytes) + " end"
	args, err := json.Marshal(map[string]string{"answer": answer})
	require.NoError(t, err)
	a := worker{LLM: &scriptLLM{replies: []scripted{calling(finishCall("c1", string(args)))}}, Outputs: outputs.New(dir)}.set()
	out, err := a.AgentTurn(context.Background(), agentTurnIn(2))
	require.NoError(t, err)
	require.NotNil(t, out.Finish)
	assert.Equal(t, answer, out.Finish.Answer)
	require.NotEmpty(t, out.Finish.OutputRef, "the plan keeps a head of the answer: the whole is kept outside")
	assert.Equal(t, answer, readRef(t, out.Finish.OutputRef))
}

func TestFinishStepOfferedToEveryAgentTurnButTheLast(t *testing.T) {
	a, model := newScripted(text("a"), text("b"))
	_, err := a.AgentTurn(context.Background(), agentTurnIn(1))
	require.NoError(t, err)
	_, err = a.AgentTurn(context.Background(), agentTurnIn(4))
	require.NoError(t, err)
	first := model.requests[0].Tools
	assert.Equal(t, []string{"read_file", FinishStep}, toolNames(first), "offered though the step names only read_file")
	spec := first[1]
	assert.Less(t, len(spec.Description)+len(spec.Parameters), 250, "every turn sends it: it stays short")
	assert.JSONEq(t, `{"type":"object","properties":{"answer":{"type":"string"}},"required":["answer"],"additionalProperties":false}`,
		string(spec.Parameters))
	assert.Empty(t, model.requests[1].Tools, "the last turn offers no tools: the model answers")
}

func TestPlanningAndReflectionNeverOfferedFinishStep(t *testing.T) {
	ws := testkit.Workspace(t, map[string]string{"a.go": "package a\n"})
	a, model := newScripted(text(optionsJSON(t, 1, 2)),
		calling(finishCall("f", `{"answer":"done"}`)), text(goodReflect))
	_, err := a.GenerateOptions(context.Background(), optionsIn(ws))
	require.NoError(t, err)
	r, err := a.Reflect(context.Background(), ReflectInput{Context: plan.StepContext{Goal: "g"}, Workspace: ws, Result: editedFile()})
	require.NoError(t, err)
	assert.Equal(t, plan.DecisionContinue, r.Decision)

	require.Len(t, model.requests, 3)
	for i, req := range model.requests {
		assert.NotContains(t, toolNames(req.Tools), FinishStep, "request %d (%s)", i, req.Phase)
		for _, m := range req.Messages {
			if m.Role == llm.RoleSystem || m.Role == llm.RoleUser {
				assert.NotContains(t, m.Content, FinishStep, "request %d (%s) does not name it", i, req.Phase)
			}
		}
	}
	calls := toolMessages(model.requests[2].Messages)
	require.Len(t, calls, 1)
	assert.Contains(t, calls[0].Content, "unknown tool finish_step", "reflection calling it ends nothing")
}
