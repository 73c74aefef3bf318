package workflows

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	enumspb "go.temporal.io/api/enums/v1"
	historypb "go.temporal.io/api/history/v1"
	"go.temporal.io/api/temporalproto"
	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/worker"
	"go.temporal.io/sdk/workflow"

	"github.com/planmode/planmode/activities"
	"github.com/planmode/planmode/plan"
	"github.com/planmode/planmode/signals"
)

// recordEnv names the dev server (host:port on loopback) the TestRecord
// tests record against. Without it they are skipped. The tests register
// planmode's search attributes the server lacks:
//
//	temporal server start-dev --ip 127.0.0.1 --port 7299 --headless
//	PLANMODE_RECORD_HISTORY=127.0.0.1:7299 go test ./workflows -run TestRecord
const recordEnv = "PLANMODE_RECORD_HISTORY"

// Recorded histories the replay tests replay: a completed run recorded
// before plans ended Failed or Canceled, a failed and a cancelled run
// recorded since, with one marker per change, and the completed run's
// scenario again with the one marker of boundedHistoryChange, again with
// the one marker of workspaceLeaseChange (its workspace leased from
// PlanWorkspaces and released at the end), and again with the one marker
// of goalDigestChange (PlanGoal a digest from the GoalAttr local
// activity).
var (
	historyFile          = filepath.Join("testdata", "planmode-history.json")
	boundedHistoryFile   = filepath.Join("testdata", "planmode-bounded-history.json")
	leaseHistoryFile     = filepath.Join("testdata", "planmode-lease-history.json")
	goalDigestFile       = filepath.Join("testdata", "planmode-goal-digest-history.json")
	failedHistoryFile    = filepath.Join("testdata", "planmode-failed-history.json")
	cancelledHistoryFile = filepath.Join("testdata", "planmode-cancelled-history.json")
)

// scripted plays every activity for the recording, deterministically; its
// methods carry the activity names the workflow calls. failStep names an
// llm step that fails.
type scripted struct{ failStep string }

func (scripted) Clarify(_ context.Context, in activities.ClarifyInput) (activities.ClarifyOutput, error) {
	if len(in.Answers) > 0 {
		return activities.ClarifyOutput{Goal: in.Task.Goal + " for " + in.Answers["Which users?"], Usage: plan.Usage{TotalTokens: 4}}, nil
	}
	return activities.ClarifyOutput{Goal: in.Task.Goal, Questions: []string{"Which users?"}, Usage: plan.Usage{TotalTokens: 4}}, nil
}

func (scripted) GenerateOptions(_ context.Context, in activities.OptionsInput) (activities.OptionsOutput, error) {
	s4 := llmStep("s4", "s3")
	return activities.OptionsOutput{Options: []plan.Option{
		option("Full", plan.ComplexityLow, 0.9,
			llmStep("s1"), toolStep("s2", "write_file", map[string]any{"path": "a.go"}), agentStep("s3", 3), s4),
		option("Lean", plan.ComplexityHigh, 0.5, llmSteps(2)...),
	}, Usage: plan.Usage{TotalTokens: 30}}, nil
}

func (s scripted) ExecuteLLMStep(_ context.Context, in activities.StepInput) (plan.StepResult, error) {
	if in.Context.Step.ID == s.failStep {
		return plan.StepResult{Error: "tests fail", Usage: plan.Usage{TotalTokens: 10}}, nil
	}
	return plan.StepResult{Success: true, Output: "done " + in.Context.Step.ID, Usage: plan.Usage{TotalTokens: 10}}, nil
}

func (scripted) AgentTurn(_ context.Context, in activities.AgentTurnInput) (activities.AgentTurnOutput, error) {
	if in.Iteration == 1 {
		return activities.AgentTurnOutput{ToolCalls: []activities.ToolCall{{ID: "c1", Name: "read_file", Arguments: `{"path":"a.go"}`}}}, nil
	}
	return activities.AgentTurnOutput{Content: "fixed"}, nil
}

func (scripted) Reflect(_ context.Context, in activities.ReflectInput) (plan.Reflection, error) {
	if in.Context.Step.ID == "s1" {
		return plan.Reflection{Decision: plan.DecisionSkip, StepIDs: []string{"s2"}, Reason: "maybe redundant", Confidence: 0.4}, nil
	}
	return plan.Reflection{Decision: plan.DecisionContinue}, nil
}

func (scripted) Summarize(_ context.Context, in activities.SummarizeInput) (activities.SummarizeOutput, error) {
	return activities.SummarizeOutput{Summary: "recorded run " + in.Status}, nil
}

func (scripted) RunTool(_ context.Context, in activities.ToolInput) (activities.ToolOutput, error) {
	return activities.ToolOutput{Success: true, Output: "ran " + in.Call.Name}, nil
}

func (scripted) SnapshotWorkspace(context.Context, activities.SnapshotInput) (activities.SnapshotOutput, error) {
	return activities.SnapshotOutput{SnapshotID: "snap-rec", Files: 1}, nil
}

func (scripted) Notify(context.Context, activities.NotifyInput) (activities.NotifyOutput, error) {
	return activities.NotifyOutput{Sent: true, StatusCode: 204}, nil
}

func (scripted) RestoreWorkspace(context.Context, activities.RestoreInput) (activities.RestoreOutput, error) {
	return activities.RestoreOutput{Restored: []string{"a.go"}}, nil
}

// AcquireWorkspace leases the workspace from the registry as the
// activity does, the workspace itself as the key.
func (scripted) AcquireWorkspace(ctx context.Context, in activities.AcquireWorkspaceInput) (activities.AcquireWorkspaceOutput, error) {
	c := activity.GetClient(ctx)
	start := c.NewWithStartWorkflowOperation(client.StartWorkflowOptions{ID: in.Registry, TaskQueue: in.TaskQueue,
		WorkflowIDConflictPolicy: enumspb.WORKFLOW_ID_CONFLICT_POLICY_USE_EXISTING}, signals.WorkspacesWorkflowType, signals.WorkspaceRegistry{})
	h, err := c.UpdateWithStartWorkflow(ctx, client.UpdateWithStartWorkflowOptions{StartWorkflowOperation: start,
		UpdateOptions: client.UpdateWorkflowOptions{UpdateName: signals.AcquireWorkspace.Name,
			WaitForStage: client.WorkflowUpdateStageCompleted,
			Args:         []any{signals.WorkspaceLeaseRequest{Key: in.Workspace, PlanID: in.PlanID, RunID: in.RunID}}}})
	var out activities.AcquireWorkspaceOutput
	if err == nil {
		err = h.Get(ctx, &out.Lease)
	}
	return out, err
}

// GoalAttr answers as a worker that encrypts payloads: a digest.
func (scripted) GoalAttr(context.Context, activities.GoalAttrInput) (activities.GoalAttrOutput, error) {
	return activities.GoalAttrOutput{Value: "hmac:5f0c1a2b3c4d5e6f708192a3b4c5d6e7", Digest: true}, nil
}

// TestRecordHistory runs one full PlanMode on a dev server — a clarifying
// question, a selection, a skip confirmation, an edit, a pause and a
// resume, a rollback — and writes its history to testdata for the replay
// test. It runs only when recordEnv is set.
func TestRecordHistory(t *testing.T) { recordFull(t, historyFile) }

// TestRecordBoundedHistory recorded TestRecordHistory's scenario when the
// code recorded boundedHistoryChange's marker only; it now records what
// TestRecordLeaseHistory does.
func TestRecordBoundedHistory(t *testing.T) { recordFull(t, boundedHistoryFile) }

// TestRecordLeaseHistory recorded TestRecordHistory's scenario when the
// code recorded workspaceLeaseChange's marker only; it now records what
// TestRecordGoalDigestHistory does.
func TestRecordLeaseHistory(t *testing.T) { recordFull(t, leaseHistoryFile) }

// TestRecordGoalDigestHistory records TestRecordHistory's scenario under
// the current code, which records goalDigestChange's marker only.
func TestRecordGoalDigestHistory(t *testing.T) { recordFull(t, goalDigestFile) }

// recordFull records TestRecordHistory's scenario in file.
func recordFull(t *testing.T, file string) {
	c, ctx := recorder(t, scripted{})
	id := fmt.Sprintf("planmode-record-%d", time.Now().UnixNano())
	// One step at a time, as runs did when the first one was recorded, so
	// s1's reflection finds s2 pending.
	req := signals.StartRequest{Goal: "Add JWT authentication", Workspace: "/srv/repo", Clarify: signals.ClarifyPolicy{AskQuestions: true},
		Execution: signals.ExecutionPolicy{Parallelism: 1}}
	run, err := c.ExecuteWorkflow(ctx, client.StartWorkflowOptions{ID: id, TaskQueue: recordQueue}, signals.WorkflowType, req)
	require.NoError(t, err)
	drive(ctx, t, c, id)

	var res signals.Result
	require.NoError(t, run.Get(ctx, &res))
	require.Equal(t, signals.StatusCompleted, res.Status, res.Error)
	writeHistory(ctx, t, c, id, file)
}

// TestRecordFailedHistory records a run whose last step fails: it ends
// Failed with the Result in a PlanFailed error.
func TestRecordFailedHistory(t *testing.T) {
	c, ctx := recorder(t, scripted{failStep: "s4"})
	id := fmt.Sprintf("planmode-record-failed-%d", time.Now().UnixNano())
	req := signals.StartRequest{Goal: "Add JWT authentication", Workspace: "/srv/repo",
		Selection: signals.SelectionPolicy{Mode: signals.SelectAuto}, Execution: signals.ExecutionPolicy{Mode: signals.ExecEfficient}}
	run, err := c.ExecuteWorkflow(ctx, client.StartWorkflowOptions{ID: id, TaskQueue: recordQueue}, signals.WorkflowType, req)
	require.NoError(t, err)

	res, ok := signals.ResultFromError(run.Get(ctx, nil))
	require.True(t, ok, "the run fails with its Result")
	require.Equal(t, signals.StatusFailed, res.Status)
	writeHistory(ctx, t, c, id, failedHistoryFile)
}

// TestRecordCancelledHistory records a run cancelled through Temporal
// while it waits for a skip confirmation: it ends Canceled with the
// Result.
func TestRecordCancelledHistory(t *testing.T) {
	c, ctx := recorder(t, scripted{})
	id := fmt.Sprintf("planmode-record-cancelled-%d", time.Now().UnixNano())
	req := signals.StartRequest{Goal: "Add JWT authentication", Workspace: "/srv/repo"}
	run, err := c.ExecuteWorkflow(ctx, client.StartWorkflowOptions{ID: id, TaskQueue: recordQueue}, signals.WorkflowType, req)
	require.NoError(t, err)
	waitFor(ctx, t, c, id, signals.AwaitingSelection)
	_, err = signals.SelectOption.Update(ctx, c, id, signals.SelectOptionRequest{Rank: 1})
	require.NoError(t, err)
	waitFor(ctx, t, c, id, signals.AwaitingConfirmation)
	require.NoError(t, c.CancelWorkflow(ctx, id, ""))

	res, ok := signals.ResultFromError(run.Get(ctx, nil))
	require.True(t, ok, "the run is cancelled with its Result")
	require.Equal(t, signals.StatusCancelled, res.Status)
	writeHistory(ctx, t, c, id, cancelledHistoryFile)
}

// recordQueue is the task queue of the recordings.
const recordQueue = "planmode-record"

// recorder dials the dev server recordEnv names, or skips t, and starts a
// worker with PlanMode, PlanNotify, PlanWorkspaces and acts as its activities, stopped
// when t ends.
func recorder(t *testing.T, acts scripted) (client.Client, context.Context) {
	t.Helper()
	addr := os.Getenv(recordEnv)
	if addr == "" {
		t.Skipf("set %s to a dev server address to record a history", recordEnv)
	}
	c, err := client.Dial(client.Options{HostPort: addr})
	require.NoError(t, err)
	t.Cleanup(c.Close)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	t.Cleanup(cancel)
	require.NoError(t, signals.EnsureSearchAttributes(ctx, c, "default"))
	w := worker.New(c, recordQueue, worker.Options{})
	w.RegisterWorkflow(PlanMode)
	w.RegisterWorkflowWithOptions(PlanNotify, workflow.RegisterOptions{Name: signals.NotifyWorkflowType})
	w.RegisterWorkflowWithOptions(PlanWorkspaces, workflow.RegisterOptions{Name: signals.WorkspacesWorkflowType})
	w.RegisterActivity(&acts)
	require.NoError(t, w.Start())
	t.Cleanup(w.Stop)
	return c, ctx
}

// drive plays the person: it waits for each request and answers it.
func drive(ctx context.Context, t *testing.T, c client.Client, id string) {
	waitFor(ctx, t, c, id, signals.AwaitingClarification)
	_, err := signals.AnswerClarification.Update(ctx, c, id, signals.AnswerClarificationRequest{Answers: map[string]string{"1": "admins"}})
	require.NoError(t, err)
	waitFor(ctx, t, c, id, signals.AwaitingSelection)
	_, err = signals.SelectOption.Update(ctx, c, id, signals.SelectOptionRequest{Rank: 1, Feedback: "go"})
	require.NoError(t, err)
	waitFor(ctx, t, c, id, signals.AwaitingConfirmation)
	_, err = signals.Pause.Update(ctx, c, id, signals.ControlRequest{Reason: "review"})
	require.NoError(t, err)
	_, err = signals.EditPlan.Update(ctx, c, id, signals.EditPlanRequest{Reason: "docs", Edits: []plan.Edit{{Op: plan.OpAppend, Step: newStep("docs", "s4")}}})
	require.NoError(t, err)
	require.NoError(t, signals.ConfirmSkip.Signal(ctx, c, id, signals.ConfirmSkipRequest{RequestID: "skip-1", Approve: false}))
	waitFor(ctx, t, c, id, signals.AwaitingResume)
	_, err = signals.Rollback.Update(ctx, c, id, signals.RollbackRequest{})
	require.NoError(t, err)
	_, err = signals.Resume.Update(ctx, c, id, signals.ControlRequest{})
	require.NoError(t, err)
}

// waitFor polls the pending query until the run awaits want.
func waitFor(ctx context.Context, t *testing.T, c client.Client, id string, want signals.Awaiting) {
	t.Helper()
	require.Eventually(t, func() bool {
		p, err := signals.PendingQuery.Get(ctx, c, id)
		return err == nil && p.Awaiting == want
	}, 30*time.Second, 50*time.Millisecond, "run never awaited %s", want)
}

// writeHistory saves the run's history as JSON in file.
func writeHistory(ctx context.Context, t *testing.T, c client.Client, id, file string) {
	t.Helper()
	it := c.GetWorkflowHistory(ctx, id, "", false, 0)
	hist := &historypb.History{}
	for it.HasNext() {
		e, err := it.Next()
		require.NoError(t, err)
		hist.Events = append(hist.Events, e)
	}
	b, err := temporalproto.CustomJSONMarshalOptions{Indent: "  "}.Marshal(hist)
	require.NoError(t, err)
	require.NoError(t, os.MkdirAll(filepath.Dir(file), 0o755))
	require.NoError(t, os.WriteFile(file, b, 0o644))
	t.Logf("wrote %d events to %s", len(hist.Events), file)
}
