package activities

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/converter"
	sdktest "go.temporal.io/sdk/testsuite"

	"github.com/planmode/planmode/internal/testkit"
	"github.com/planmode/planmode/llm"
	"github.com/planmode/planmode/plan"
	"github.com/planmode/planmode/prompts"
	"github.com/planmode/planmode/workspace"
)

// calling scripts a reply that calls tools, with fixed usage.
func calling(calls ...ToolCall) scripted {
	return scripted{resp: llm.Response{ToolCalls: calls, Model: "gpt-4o",
		Usage: plan.Usage{PromptTokens: 100, CompletionTokens: 20, TotalTokens: 120}}}
}

// optionsIn asks for one option of a task in workspace ws.
func optionsIn(ws string) OptionsInput {
	return OptionsInput{Task: plan.Task{ID: "wf", Goal: "Add a discount", Context: plan.TaskContext{WorkspaceRoot: ws}},
		Count: 1, Revision: 1}
}

// toolNames returns the names of specs.
func toolNames(specs []llm.ToolSpec) []string {
	var out []string
	for _, s := range specs {
		out = append(out, s.Name)
	}
	return out
}

// toolMessages returns the tool messages of msgs.
func toolMessages(msgs []Message) []Message {
	var out []Message
	for _, m := range msgs {
		if m.Role == llm.RoleTool {
			out = append(out, m)
		}
	}
	return out
}

var readOnlyTools = []string{"list_files", "read_file", "search_code", "search_files"}

func TestPlanningReadsAFileThenAnswers(t *testing.T) {
	ws := testkit.Workspace(t, map[string]string{"cart.go": "package cart\n\nfunc Total() int { return 42 }\n"})
	a, model := newScripted(calling(ToolCall{ID: "c1", Name: "read_file", Arguments: `{"path":"cart.go"}`}),
		text(optionsJSON(t, 1, 2)))
	out, err := a.GenerateOptions(context.Background(), optionsIn(ws))
	require.NoError(t, err)
	require.Len(t, out.Options, 1)
	require.Equal(t, 2, model.calls())
	assert.Equal(t, 2, out.Usage.Calls)
	assert.Equal(t, 240, out.Usage.TotalTokens, "the usage of both calls")

	first := model.requests[0]
	assert.Equal(t, readOnlyTools, toolNames(first.Tools), "only read-only tools are offered")
	assert.Equal(t, llm.FormatJSON, first.Format, "tools and JSON mode go together")
	assert.Contains(t, first.Messages[0].Content, "inspect the workspace with the read-only tools offered")
	assert.True(t, strings.HasPrefix(first.Messages[0].Content, prompts.PhaseLine+PhasePlan), "the phase line stays first")

	second := model.requests[1].Messages
	require.Len(t, second, 4)
	assert.Equal(t, llm.RoleAssistant, second[2].Role)
	assert.Equal(t, "c1", second[2].ToolCalls[0].ID)
	assert.Equal(t, Message{Role: llm.RoleTool, ToolCallID: "c1", Content: "package cart\n\nfunc Total() int { return 42 }\n"},
		second[3])
	assert.Equal(t, readOnlyTools, toolNames(model.requests[1].Tools), "tools stay offered within the round cap")
}

// editedFile is the result of a step that changed a file, after which
// reflection may inspect the workspace.
func editedFile() *plan.StepResult {
	return &plan.StepResult{Success: true, Output: "edited a.go",
		FilesChanged: []plan.FileChange{{Path: "a.go", Op: plan.FileModified, LinesAdded: 2}}}
}

func TestReflectionNeverRunsAMutatingTool(t *testing.T) {
	ws := testkit.Workspace(t, nil)
	a, model := newScripted(calling(
		ToolCall{ID: "w", Name: "write_file", Arguments: `{"path":"evil.go","content":"package evil"}`},
		ToolCall{ID: "d", Name: "delete_file", Arguments: `{"path":"x"}`},
		ToolCall{ID: "u", Name: "launch_rockets", Arguments: `{}`}),
		text(goodReflect))
	r, err := a.Reflect(context.Background(), ReflectInput{Context: plan.StepContext{Goal: "g"}, Workspace: ws, Result: editedFile()})
	require.NoError(t, err)
	assert.Equal(t, plan.DecisionContinue, r.Decision)
	assert.NoFileExists(t, filepath.Join(ws, "evil.go"))

	msgs := toolMessages(model.requests[1].Messages)
	require.Len(t, msgs, 3)
	assert.Contains(t, msgs[0].Content, "tool write_file changes the workspace and is not available while planning "+
		"or reflecting")
	assert.Contains(t, msgs[1].Content, "tool delete_file changes the workspace")
	assert.Contains(t, msgs[2].Content, "unknown tool launch_rockets; available: list_files, read_file")
	assert.Equal(t, []string{"w", "d", "u"}, []string{msgs[0].ToolCallID, msgs[1].ToolCallID, msgs[2].ToolCallID})
	assert.Equal(t, readOnlyTools, toolNames(model.requests[0].Tools))
}

func TestInspectionRoundCapForcesAnAnswer(t *testing.T) {
	ws := testkit.Workspace(t, map[string]string{"a.go": "package a\n"})
	list := ToolCall{Name: "list_files", Arguments: `{}`}
	replies := []scripted{}
	for i := 0; i < llm.MaxInspectRounds; i++ {
		replies = append(replies, calling(list))
	}
	a, model := newScripted(append(replies, text(optionsJSON(t, 1, 1)))...)
	out, err := a.GenerateOptions(context.Background(), optionsIn(ws))
	require.NoError(t, err)
	require.Equal(t, llm.MaxInspectRounds+1, model.calls())
	assert.Equal(t, llm.MaxInspectRounds+1, out.Usage.Calls)
	for i := 0; i < llm.MaxInspectRounds; i++ {
		assert.NotEmpty(t, model.requests[i].Tools, "round %d offers tools", i+1)
	}
	last := model.requests[llm.MaxInspectRounds]
	assert.Empty(t, last.Tools, "the answer round offers no tools")
	assert.Equal(t, prompts.InspectDone, last.Messages[len(last.Messages)-1].Content)
	ids := map[string]bool{}
	for _, m := range toolMessages(last.Messages) {
		assert.Contains(t, m.Content, "a.go")
		ids[m.ToolCallID] = true
	}
	assert.Len(t, ids, llm.MaxInspectRounds, "calls without an id get distinct ones")
}

func TestNoToolsWithoutAUsableWorkspace(t *testing.T) {
	root := testkit.Workspace(t, nil)
	outside := testkit.Workspace(t, map[string]string{"a.go": "package a\n"})
	tests := []struct {
		name string
		a    func(llm.Client) Set
		ws   string
	}{
		{"no workspace", func(l llm.Client) Set { return worker{LLM: l}.set() }, ""},
		{"no workspace under a root", func(l llm.Client) Set { return worker{LLM: l, Workspace: workspace.Root{Dir: root}}.set() }, ""},
		{"missing workspace", func(l llm.Client) Set { return worker{LLM: l}.set() }, filepath.Join(root, "missing")},
		{"outside the root", func(l llm.Client) Set { return worker{LLM: l, Workspace: workspace.Root{Dir: root}}.set() }, outside},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			model := &scriptLLM{replies: []scripted{text(optionsJSON(t, 1, 1)), text(goodReflect)}}
			a := tt.a(model)
			_, err := a.GenerateOptions(context.Background(), optionsIn(tt.ws))
			require.NoError(t, err)
			_, err = a.Reflect(context.Background(), ReflectInput{Context: plan.StepContext{Goal: "g"}, Workspace: tt.ws, Result: editedFile()})
			require.NoError(t, err)
			require.Equal(t, 2, model.calls())
			for _, req := range model.requests {
				assert.Empty(t, req.Tools)
				assert.NotContains(t, req.Messages[0].Content, "read-only tools offered")
			}
		})
	}
}

func TestClarifyOffersNoTools(t *testing.T) {
	ws := testkit.Workspace(t, map[string]string{"a.go": "package a\n"})
	a, model := newScripted(text(`{"goal":"g","needsPlan":true}`))
	_, err := a.Clarify(context.Background(), ClarifyInput{Task: plan.Task{Goal: "g",
		Context: plan.TaskContext{WorkspaceRoot: ws}}})
	require.NoError(t, err)
	assert.Empty(t, model.requests[0].Tools)
}

func TestInspectionResultsAreBounded(t *testing.T) {
	big := strings.Repeat(strings.Repeat("x", 99)+"\n", 300)
	ws := testkit.Workspace(t, map[string]string{"big.txt": big})
	a, model := newScripted(calling(
		ToolCall{ID: "big", Name: "read_file", Arguments: `{"path":"big.txt"}`},
		ToolCall{ID: "gone", Name: "read_file", Arguments: `{"path":"gone.txt"}`},
		ToolCall{ID: "bad", Name: "read_file", Arguments: `{"path":"../../etc/passwd"}`}),
		text(goodReflect))
	_, err := a.Reflect(context.Background(), ReflectInput{Context: plan.StepContext{Goal: "g"}, Workspace: ws, Result: editedFile()})
	require.NoError(t, err)
	msgs := toolMessages(model.requests[1].Messages)
	require.Len(t, msgs, 3)
	assert.LessOrEqual(t, len(msgs[0].Content), maxInspectOutput)
	assert.Contains(t, msgs[0].Content, "[output truncated to 8192 of")
	assert.True(t, strings.HasPrefix(msgs[1].Content, "error: "), msgs[1].Content)
	assert.True(t, strings.HasPrefix(msgs[2].Content, "error: "), msgs[2].Content)
	assert.NotContains(t, msgs[2].Content, "root:", "nothing outside the workspace is read")
}

func TestRepairAfterInspectionKeepsTheTranscript(t *testing.T) {
	ws := testkit.Workspace(t, map[string]string{"a.go": "package a\n"})
	a, model := newScripted(calling(ToolCall{ID: "c1", Name: "read_file", Arguments: `{"path":"a.go"}`}),
		text("I looked; here is my plan"), text(goodReflect))
	r, err := a.Reflect(context.Background(), ReflectInput{Context: plan.StepContext{Goal: "g"}, Workspace: ws, Result: editedFile()})
	require.NoError(t, err)
	assert.Equal(t, 3, r.Usage.Calls)
	repair := model.requests[2]
	assert.Empty(t, repair.Tools, "the repair offers no tools")
	require.Len(t, repair.Messages, 6)
	assert.Equal(t, "package a\n", repair.Messages[3].Content)
	assert.Equal(t, "I looked; here is my plan", repair.Messages[4].Content)
	assert.Contains(t, repair.Messages[5].Content, "Your reply was not valid")
}

func TestInspectToolsFollowTheConfiguredSpecs(t *testing.T) {
	ws := testkit.Workspace(t, nil)
	custom := worker{ToolSpecs: staticSpecs{{Name: "read_file"}, {Name: "write_file"}}}.set()
	assert.Equal(t, readOnlyTools, toolNames(custom.inspectTools(inspection{workspace: ws})),
		"specs that cannot tell read-only tools apart give way to the registry's")
	assert.Equal(t, readOnlyTools, toolNames(worker{}.set().inspectTools(inspection{workspace: ws})))
	require.NoError(t, os.RemoveAll(ws))
	assert.Empty(t, worker{}.set().inspectTools(inspection{workspace: ws}))
}

func TestInspectionHeartbeatsBetweenRounds(t *testing.T) {
	ws := testkit.Workspace(t, map[string]string{"a.go": "package a\n"})
	a, _ := newScripted(calling(ToolCall{ID: "c1", Name: "list_files", Arguments: `{}`}),
		calling(ToolCall{ID: "c2", Name: "read_file", Arguments: `{"path":"a.go"}`}), text(goodReflect))
	var suite sdktest.WorkflowTestSuite
	env := suite.NewTestActivityEnvironment()
	env.RegisterActivity(a.Reflect)
	var mu sync.Mutex
	var beats []string
	env.SetOnActivityHeartbeatListener(func(_ *activity.Info, details converter.EncodedValues) {
		var what string
		require.NoError(t, details.Get(&what))
		mu.Lock()
		beats = append(beats, what)
		mu.Unlock()
	})
	val, err := env.ExecuteActivity(a.Reflect, ReflectInput{Context: plan.StepContext{Goal: "g"}, Workspace: ws, Result: editedFile()})
	require.NoError(t, err)
	var r plan.Reflection
	require.NoError(t, val.Get(&r))
	assert.Equal(t, 3, r.Usage.Calls)
	mu.Lock()
	defer mu.Unlock()
	require.NotEmpty(t, beats, "the SDK throttles heartbeats: the first one goes out at once")
	assert.Equal(t, "inspecting the workspace: reflect, round 1 of 3", beats[0])
}

func TestReflectionInspectsOnlyWhenTheStepMayHaveLeftSomething(t *testing.T) {
	ws := testkit.Workspace(t, map[string]string{"a.go": "package a\n"})
	tests := []struct {
		name   string
		result *plan.StepResult
		status plan.StepStatus
		tools  bool
	}{
		{"plain success", &plan.StepResult{Success: true, Output: "the analysis"}, plan.StepCompleted, false},
		{"files changed", editedFile(), plan.StepCompleted, true},
		{"commands run", &plan.StepResult{Success: true, Output: "ok", CommandsRun: 2}, plan.StepCompleted, true},
		{"failed", &plan.StepResult{Error: "the model returned an empty reply"}, plan.StepFailed, true},
		{"no result, failed", nil, plan.StepFailed, true},
		{"no result, skipped", nil, plan.StepSkipped, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a, model := newScripted(text(goodReflect))
			a.Tools.Folders.Root = workspace.Root{Dir: filepath.Dir(ws)}
			_, err := a.Reflect(context.Background(), ReflectInput{Workspace: ws, Result: tt.result,
				Context: plan.StepContext{Goal: "g", Step: plan.Step{ID: "s1", Title: "Work", Status: tt.status},
					Position: 1, Total: 2},
				Remaining: []plan.StepDigest{{ID: "s2", Title: "Next"}}})
			require.NoError(t, err)
			req := model.requests[0]
			if !tt.tools {
				assert.Empty(t, req.Tools)
				assert.NotContains(t, req.Messages[0].Content, "read-only tools offered")
				return
			}
			assert.Equal(t, readOnlyTools, toolNames(req.Tools))
			assert.Contains(t, req.Messages[0].Content, "read-only tools offered")
		})
	}
}
