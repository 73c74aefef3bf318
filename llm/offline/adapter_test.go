package offline_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/planmode/planmode/activities"
	"github.com/planmode/planmode/internal/devserver"
	"github.com/planmode/planmode/llm"
	"github.com/planmode/planmode/llm/offline"
	"github.com/planmode/planmode/llm/openai"
	"github.com/planmode/planmode/plan"
	"github.com/planmode/planmode/tools"
)

// The offline brain through the real adapter: the activities render their
// prompts, go-openai talks HTTP to the server, the brain answers and the
// activities parse and check the replies.

// demoWorkspace copies the demo's workspace into a temporary directory.
func demoWorkspace(t *testing.T) string {
	t.Helper()
	dst := t.TempDir()
	require.NoError(t, devserver.CopyDemoWorkspace(dst))
	return dst
}

func offlineActivities(t *testing.T) (activities.Set, *offline.Server) {
	t.Helper()
	srv := offline.New()
	t.Cleanup(srv.Close)
	cfg := llm.Config{BaseURL: srv.URL(), APIKey: "offline", Model: offline.DefaultModel}
	model, err := openai.New(cfg)
	require.NoError(t, err)
	tl := &activities.Tools{Registry: tools.Builtin(tools.DefaultConfig())}
	return activities.Set{Model: &activities.Model{LLM: model, LLMConfig: cfg, Offline: true, Tools: tl}, Tools: tl}, srv
}

func TestOfflineClarifyThroughAdapter(t *testing.T) {
	a, srv := offlineActivities(t)
	ws := demoWorkspace(t)
	ctx := context.Background()

	out, err := a.Clarify(ctx, activities.ClarifyInput{Task: plan.Task{Goal: "add a discount to the cart",
		Context: plan.TaskContext{WorkspaceRoot: ws}}})
	require.NoError(t, err)
	assert.Equal(t, "Add a discount to the cart.", out.Goal)
	assert.Empty(t, out.DirectAnswer)
	assert.Positive(t, out.Usage.TotalTokens)

	out, err = a.Clarify(ctx, activities.ClarifyInput{Task: plan.Task{Goal: "What is the VAT rate in France?"}})
	require.NoError(t, err)
	assert.Contains(t, out.DirectAnswer, offline.OfflineNotice)

	out, err = a.Clarify(ctx, activities.ClarifyInput{Task: plan.Task{Goal: "fix it"}, AskQuestions: true})
	require.NoError(t, err)
	assert.Len(t, out.Questions, 3)
	assert.Equal(t, 3, srv.Calls(llm.PhaseClarify))
}

func TestOfflineOptionsThroughAdapter(t *testing.T) {
	a, _ := offlineActivities(t)
	ws := demoWorkspace(t)
	task := plan.Task{ID: "t1", Goal: "Add a discount to the cart", Context: plan.TaskContext{WorkspaceRoot: ws}}
	for _, tt := range []struct {
		count, maxSteps int
		feedback        string
	}{{3, 0, ""}, {5, 3, ""}, {2, 0, "make it faster"}} {
		out, err := a.GenerateOptions(context.Background(), activities.OptionsInput{Task: task,
			Count: tt.count, MaxSteps: tt.maxSteps, Feedback: tt.feedback, Revision: 1})
		require.NoError(t, err)
		require.Len(t, out.Options, tt.count)
		for _, o := range out.Options {
			res := plan.Validate(o.Plan, plan.Limits{MaxSteps: tt.maxSteps})
			assert.True(t, res.Valid, "%s: %v", o.Title, res.Messages())
			if tt.feedback != "" {
				assert.Contains(t, o.Description, tt.feedback)
			}
		}
		ranked := plan.Rank(out.Options)
		assert.Greater(t, ranked[0].Score, ranked[len(ranked)-1].Score)
	}
}

func TestOfflineStepsThroughAdapter(t *testing.T) {
	a, srv := offlineActivities(t)
	ws := demoWorkspace(t)
	ctx := context.Background()
	llmStep := plan.Step{ID: "s1", Title: "Review the change", Action: plan.ActionLLM,
		Config: plan.StepConfig{LLM: &plan.LLMConfig{Prompt: "Review the change for mistakes"}}}
	res, err := a.ExecuteLLMStep(ctx, activities.StepInput{PlanID: "p", Workspace: ws,
		Context: plan.StepContext{Goal: "Add a discount", Step: llmStep, Position: 1, Total: 2}})
	require.NoError(t, err)
	assert.True(t, res.Success)
	assert.Contains(t, res.Output, offline.OfflineNotice)

	agentStep := plan.Step{ID: "s2", Title: "Write the notes", Action: plan.ActionAgent,
		Config: plan.StepConfig{Agent: &plan.AgentConfig{Prompt: "Write NOTES.md with what the cart does",
			Tools: []string{plan.ToolListFiles, plan.ToolReadFile, plan.ToolWriteFile}}}}
	in := activities.AgentTurnInput{StepInput: activities.StepInput{PlanID: "p", Workspace: ws,
		Context: plan.StepContext{Goal: "Add a discount", Step: agentStep, Position: 2, Total: 2}}, MaxIterations: 8}
	// The turns as the workflow plays them: every call but finish_step
	// runs, then (all of them succeeding here) finish_step ends the step.
	var final string
	turns := 0
	for in.Iteration = 1; in.Iteration <= in.MaxIterations; in.Iteration++ {
		turn, err := a.AgentTurn(ctx, in)
		require.NoError(t, err)
		turns++
		if len(turn.ToolCalls) == 0 {
			final = turn.Content
			break
		}
		in.Transcript = append(in.Transcript, activities.Message{Role: llm.RoleAssistant, ToolCalls: turn.ToolCalls})
		for _, tc := range turn.ToolCalls {
			if tc.Name == activities.FinishStep {
				continue
			}
			out, err := a.RunTool(ctx, activities.ToolInput{PlanID: "p", StepID: "s2", Workspace: ws, Call: tc})
			require.NoError(t, err)
			assert.True(t, out.Success, "%s %s: %s", tc.Name, tc.Arguments, out.Error)
			in.Transcript = append(in.Transcript, activities.Message{Role: llm.RoleTool, ToolCallID: tc.ID,
				Content: out.Output})
		}
		if turn.Finish != nil {
			require.Empty(t, turn.Finish.Error)
			final = turn.Finish.Answer
			break
		}
	}
	assert.Equal(t, 3, turns, "list, read, then write with the account: no turn only to answer")
	assert.Contains(t, final, offline.OfflineNotice)
	assert.Contains(t, final, "write_file NOTES.md")
	notes, err := os.ReadFile(filepath.Join(ws, "NOTES.md"))
	require.NoError(t, err)
	assert.Contains(t, string(notes), "offline model")

	done := agentStep
	done.Status = plan.StepCompleted
	done.Result = &plan.StepResult{Success: true, Output: final}
	r, err := a.Reflect(ctx, activities.ReflectInput{
		Context:   plan.StepContext{Goal: "Add a discount", Step: done, Position: 1, Total: 2},
		Remaining: []plan.StepDigest{{ID: "s3", Title: "Run the tests"}}})
	require.NoError(t, err)
	assert.Equal(t, plan.DecisionContinue, r.Decision)
	assert.Contains(t, r.Reason, "s3 Run the tests")

	digest := (&plan.Plan{Title: "Balanced", Steps: []plan.Step{done, {ID: "s3", Title: "Run the tests", Status: plan.StepSkipped}}}).Digest()
	sum, err := a.Summarize(ctx, activities.SummarizeInput{Goal: "Add a discount", Status: "completed", Digest: &digest})
	require.NoError(t, err)
	assert.Contains(t, sum.Summary, "## Completed (1)")
	assert.Contains(t, sum.Summary, "## Skipped (1)")
	assert.Contains(t, sum.Summary, offline.OfflineNotice)
	assert.Equal(t, 1, srv.Calls(llm.PhaseSummarize))
	assert.Positive(t, srv.Usage(llm.PhaseAgent).PromptTokens)
}

func TestPhaseNamesMatchActivities(t *testing.T) {
	assert.Equal(t, activities.PhaseClarify, llm.PhaseClarify)
	assert.Equal(t, activities.PhasePlan, llm.PhasePlan)
	assert.Equal(t, activities.PhaseExecute, llm.PhaseExecute)
	assert.Equal(t, activities.PhaseAgent, llm.PhaseAgent)
	assert.Equal(t, activities.PhaseReflect, llm.PhaseReflect)
	assert.Equal(t, activities.PhaseSummarize, llm.PhaseSummarize)
	assert.Equal(t, llm.PhaseLine, "planmode phase: ")
}
