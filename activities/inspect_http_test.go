package activities_test

import (
	"context"
	"path/filepath"
	"testing"

	openai "github.com/sashabaranov/go-openai"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/planmode/planmode/activities"
	"github.com/planmode/planmode/internal/testkit"
	"github.com/planmode/planmode/llm"
	"github.com/planmode/planmode/llm/offline"
	"github.com/planmode/planmode/llm/reply"
	"github.com/planmode/planmode/plan"
)

// These tests run planning and reflection with read-only workspace tools
// over real HTTP against the fake server.

// offeredTools names the tools a recorded request offered.
func offeredTools(r offline.Recorded) []string {
	var out []string
	for _, tool := range r.Request.Tools {
		out = append(out, tool.Function.Name)
	}
	return out
}

// toolResults returns the tool messages of a recorded request.
func toolResults(r offline.Recorded) []openai.ChatCompletionMessage {
	var out []openai.ChatCompletionMessage
	for _, m := range r.Request.Messages {
		if m.Role == openai.ChatMessageRoleTool {
			out = append(out, m)
		}
	}
	return out
}

// oneOption is an options reply of one single-step option.
func oneOption() offline.Reply {
	return offline.JSONReply(reply.Options{Options: []reply.Option{{
		Title: "Apply the discount in Total", Description: "Change cart.Total",
		Steps: []reply.Step{{ID: "s1", Title: "Edit Total", Action: plan.ActionLLM,
			Config: reply.StepConfig{LLM: &plan.LLMConfig{Prompt: "Apply the discount"}}}},
	}}})
}

var readOnlyNames = []string{"list_files", "read_file", "search_code", "search_files"}

const cartSource = "package cart\n\n// Total sums the cart.\nfunc Total(prices []int) int { return 0 }\n"

func TestPlanningReadsTheWorkspaceOverHTTP(t *testing.T) {
	ws := testkit.Workspace(t, map[string]string{"cart.go": cartSource})
	srv := serve(t)
	srv.Enqueue(activities.PhasePlan,
		offline.Reply{ToolCalls: []offline.ToolCall{{Name: "read_file", Arguments: `{"path":"cart.go"}`}}},
		oneOption())
	a := over(srv, llm.Config{})
	out, err := a.GenerateOptions(context.Background(), activities.OptionsInput{Revision: 1, Count: 1,
		Task: plan.Task{ID: "wf", Goal: "Add a discount to the cart", Context: plan.TaskContext{WorkspaceRoot: ws}}})
	require.NoError(t, err)
	require.Len(t, out.Options, 1)
	assert.Equal(t, "Apply the discount in Total", out.Options[0].Title)

	reqs := srv.Requests()
	require.Len(t, reqs, 2)
	first := reqs[0]
	assert.Equal(t, readOnlyNames, offeredTools(first), "only read-only tools are offered")
	require.NotNil(t, first.Request.ResponseFormat, "JSON mode and tools go together")
	assert.Equal(t, openai.ChatCompletionResponseFormatTypeJSONObject, first.Request.ResponseFormat.Type)

	results := toolResults(reqs[1])
	require.Len(t, results, 1)
	assert.Equal(t, "call_1", results[0].ToolCallID)
	assert.Equal(t, cartSource, results[0].Content)

	server := srv.Usage(activities.PhasePlan)
	assert.Equal(t, 2, out.Usage.Calls)
	assert.Equal(t, server.PromptTokens, out.Usage.PromptTokens, "the usage of both calls")
	assert.Equal(t, server.CompletionTokens, out.Usage.CompletionTokens)
}

func TestReflectionRefusesWriteFileOverHTTP(t *testing.T) {
	ws := testkit.Workspace(t, nil)
	srv := serve(t)
	srv.Enqueue(activities.PhaseReflect, offline.Reply{ToolCalls: []offline.ToolCall{{Name: "write_file",
		Arguments: `{"path":"notes.md","content":"reflection was here"}`}}})
	a := over(srv, llm.Config{})
	r, err := a.Reflect(context.Background(), activities.ReflectInput{Workspace: ws,
		Result:  &plan.StepResult{Success: false, Error: "go vet failed"},
		Context: plan.StepContext{Goal: "Add a discount", Step: plan.Step{ID: "s1", Title: "Edit Total"}, Position: 1, Total: 1}})
	require.NoError(t, err)
	assert.NotEmpty(t, r.Decision, "the brain answers once the refusal is back")
	assert.NoFileExists(t, filepath.Join(ws, "notes.md"))

	reqs := srv.Requests()
	require.Len(t, reqs, 2)
	results := toolResults(reqs[1])
	require.Len(t, results, 1)
	assert.Contains(t, results[0].Content, "write_file changes the workspace and is not available while planning "+
		"or reflecting")
	assert.Equal(t, readOnlyNames, offeredTools(reqs[0]))
}

func TestInspectionRoundCapOverHTTP(t *testing.T) {
	ws := testkit.Workspace(t, map[string]string{"cart.go": cartSource})
	srv := serve(t)
	list := offline.Reply{ToolCalls: []offline.ToolCall{{Name: "list_files", Arguments: `{}`}}}
	for i := 0; i < llm.MaxInspectRounds+1; i++ {
		srv.Enqueue(activities.PhaseReflect, list)
	}
	srv.Enqueue(activities.PhaseReflect, offline.JSONReply(reply.Reflect{Decision: plan.DecisionContinue,
		Reason: "seen enough"}))
	a := over(srv, llm.Config{})
	r, err := a.Reflect(context.Background(), activities.ReflectInput{Context: plan.StepContext{Goal: "g"}, Workspace: ws,
		Result: &plan.StepResult{Success: true, CommandsRun: 1}})
	require.NoError(t, err, "a reply that calls tools after the cap gets one repair")
	assert.Equal(t, "seen enough", r.Reason)

	reqs := srv.Requests()
	require.Len(t, reqs, llm.MaxInspectRounds+2)
	for i, req := range reqs {
		if i < llm.MaxInspectRounds {
			assert.Equal(t, readOnlyNames, offeredTools(req), "request %d", i+1)
		} else {
			assert.Empty(t, offeredTools(req), "request %d must answer", i+1)
		}
	}
	assert.Len(t, toolResults(reqs[llm.MaxInspectRounds]), llm.MaxInspectRounds)
	assert.Equal(t, llm.MaxInspectRounds+2, r.Usage.Calls)
}

func TestNoToolsWithoutAWorkspaceOverHTTP(t *testing.T) {
	srv := serve(t)
	a := over(srv, llm.Config{})
	task := plan.Task{ID: "wf", Goal: "Add a discount to the cart",
		Context: plan.TaskContext{CurrentFiles: []string{"cart.go"}}}
	_, err := a.GenerateOptions(context.Background(), activities.OptionsInput{Task: task, Count: 1, Revision: 1})
	require.NoError(t, err)
	_, err = a.Reflect(context.Background(), activities.ReflectInput{Context: plan.StepContext{Goal: task.Goal}})
	require.NoError(t, err)

	reqs := srv.Requests()
	require.Len(t, reqs, 2)
	for _, r := range reqs {
		assert.Empty(t, offeredTools(r), r.Phase)
	}
}

func TestOfflineModelLooksBeforeItPlans(t *testing.T) {
	ws := testkit.Workspace(t, map[string]string{"cart.go": cartSource, "go.mod": "module cart\n"})
	srv := serve(t)
	a := over(srv, llm.Config{})
	a.Offline = true
	out, err := a.GenerateOptions(context.Background(), activities.OptionsInput{Count: 2, Revision: 1,
		Task: plan.Task{ID: "wf", Goal: "Add a discount to the cart", Context: plan.TaskContext{WorkspaceRoot: ws}}})
	require.NoError(t, err)
	require.Len(t, out.Options, 2)
	for _, o := range out.Options {
		assert.True(t, plan.Validate(o.Plan, plan.Limits{}).Valid, o.Title)
	}

	reqs := srv.Requests()
	require.Len(t, reqs, 2, "one listing, then the options")
	results := toolResults(reqs[1])
	require.Len(t, results, 1)
	assert.Contains(t, results[0].Content, "cart.go")
	assert.Equal(t, 2, out.Usage.Calls)
}
