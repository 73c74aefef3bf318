package workflows

import (
	"context"
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
	"github.com/planmode/planmode/internal/devserver"
	"github.com/planmode/planmode/plan"
	"github.com/planmode/planmode/signals"
	"github.com/planmode/planmode/workspace/lease"
)

// recordEnv turns the TestRecord tests on; without it they are skipped.
// Each starts the project's dev server on free loopback ports (see
// devserver.Start), records one or two histories into testdata and stops
// it. They are run when a new baseline is cut, never by `make test`:
//
//	PLANMODE_RECORD_HISTORY=1 go test ./workflows -run TestRecord -count=1
const recordEnv = "PLANMODE_RECORD_HISTORY"

// recordQueue is the task queue of the recordings.
const recordQueue = "planmode-record"

// testdata returns the path of a recorded history.
func testdata(name string) string { return filepath.Join("testdata", name) }

// scripted plays every activity for the recording, deterministically; its
// methods carry the activity names the workflows call. failStep names an
// llm step that fails; files makes the worker keep the plans' files as
// manifests (snapshots and changing calls name them); noWebhook makes it
// a worker without a webhook, whose plans start no deliveries.
type scripted struct {
	failStep  string
	files     bool
	noWebhook bool
}

func (scripted) Clarify(_ context.Context, in activities.ClarifyInput) (activities.ClarifyOutput, error) {
	if len(in.Answers) > 0 {
		return activities.ClarifyOutput{Goal: in.Task.Goal + " for " + in.Answers["Which users?"], Usage: plan.Usage{TotalTokens: 4}}, nil
	}
	return activities.ClarifyOutput{Goal: in.Task.Goal, Questions: []string{"Which users?"}, Usage: plan.Usage{TotalTokens: 4}}, nil
}

func (scripted) GenerateOptions(_ context.Context, in activities.OptionsInput) (activities.OptionsOutput, error) {
	s4 := llmStep("s4", "s3")
	// s4 reads s1 (and never skips): the plan branches on s1, so s1's
	// reflection asks the model in every mode, while s3, which does what
	// it plans, is not reflected on (plan.NeedsReflection).
	s4.SkipCondition = "s1.failed"
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
	// The step ends with finish_step: no tool runs for it.
	return activities.AgentTurnOutput{ToolCalls: []activities.ToolCall{{ID: "c2", Name: activities.FinishStep,
		Arguments: `{"answer":"fixed"}`}}, Finish: &activities.StepFinish{Answer: "fixed"}}, nil
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

func (s scripted) RunTool(_ context.Context, in activities.ToolInput) (activities.ToolOutput, error) {
	out := activities.ToolOutput{Success: true, Output: "ran " + in.Call.Name}
	if s.files && in.Files.Manifest != "" && in.Call.Name == "write_file" {
		out.Manifest = in.Files.Manifest + "+" + in.StepID
	}
	return out, nil
}

func (s scripted) SnapshotWorkspace(_ context.Context, in activities.SnapshotInput) (activities.SnapshotOutput, error) {
	if s.files {
		id := "m0"
		if in.Files.Manifest != "" {
			id = in.Files.Manifest
		}
		return activities.SnapshotOutput{SnapshotID: id, Manifest: id, Files: 1}, nil
	}
	return activities.SnapshotOutput{SnapshotID: "snap-rec", Files: 1}, nil
}

func (scripted) MergeWorkspace(_ context.Context, in activities.MergeInput) (activities.MergeOutput, error) {
	return activities.MergeOutput{Manifest: in.Ours + "*" + in.StepID}, nil
}

// ForkSource answers for a parent whose step s2 left manifest m-parent,
// with s3 not done by then.
func (scripted) ForkSource(_ context.Context, in activities.ForkSourceInput) (activities.ForkSourceOutput, error) {
	return activities.ForkSourceOutput{Goal: "Add JWT authentication", Title: "Forked", Manifest: "m-parent",
		Steps: []plan.Step{toolStep("s3", "write_file", map[string]any{"path": "c.go", "content": "c"})}}, nil
}

func (scripted) ForkWorkspace(context.Context, activities.ForkInput) (activities.ForkOutput, error) {
	return activities.ForkOutput{Manifest: "m-fork"}, nil
}

func (s scripted) Receiver(context.Context) (activities.ReceiverOutput, error) {
	return activities.ReceiverOutput{None: s.noWebhook}, nil
}

func (scripted) Notify(context.Context, activities.NotifyInput) (activities.NotifyOutput, error) {
	return activities.NotifyOutput{Sent: true, StatusCode: 204}, nil
}

func (scripted) RestoreWorkspace(context.Context, activities.RestoreInput) (activities.RestoreOutput, error) {
	return activities.RestoreOutput{Restored: []string{"a.go"}}, nil
}

// PlanEnd answers for an ended plan as the activity reads it from the
// server: completed an hour ago, with its snapshot and workspace.
func (scripted) PlanEnd(_ context.Context, in activities.PlanEndInput) (activities.PlanEndOutput, error) {
	return activities.PlanEndOutput{Status: "Completed", ClosedAt: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC),
		SnapshotID: "snap-rec", Workspace: "/srv/repo"}, nil
}

// WorkspaceChangedSince finds nothing changed since the plan ended.
func (scripted) WorkspaceChangedSince(context.Context, activities.ChangedSinceInput) (activities.ChangedSinceOutput, error) {
	return activities.ChangedSinceOutput{}, nil
}

// AcquireWorkspace leases the workspace from its lease workflows as the
// activity does (lease.Take), the workspace itself as the key.
func (s scripted) AcquireWorkspace(ctx context.Context, in activities.AcquireWorkspaceInput) (activities.AcquireWorkspaceOutput, error) {
	var out activities.AcquireWorkspaceOutput
	held, err := lease.Take(ctx, lease.Of(activity.GetClient(ctx), in.TaskQueue),
		signals.WorkspaceLeaseRequest{Key: in.Workspace, PlanID: in.PlanID, RunID: in.RunID}, nil)
	out.Lease = held
	if err == nil && in.Snapshot != nil {
		snap, _ := s.SnapshotWorkspace(ctx, *in.Snapshot)
		out.Snapshot = &snap
	}
	return out, err
}

// GoalAttr answers as a worker that encrypts payloads: a digest.
func (scripted) RecordTools(context.Context) (signals.RecordedTools, error) {
	return signals.RecordedTools{Approval: signals.ApprovalPolicy{}.WithDefaults(signals.ApprovalPolicy{})}, nil
}

func (scripted) GoalAttr(context.Context, activities.GoalAttrInput) (activities.GoalAttrOutput, error) {
	return activities.GoalAttrOutput{Value: "hmac:5f0c1a2b3c4d5e6f708192a3b4c5d6e7", Digest: true}, nil
}

// recordServer starts a dev server for one recording, with the dynamic
// config dc on top of the usual, or skips t when recordEnv is not set.
// The server and its client stop when t ends.
func recordServer(t *testing.T, dc map[string]string) (client.Client, context.Context) {
	t.Helper()
	if os.Getenv(recordEnv) == "" {
		t.Skipf("set %s=1 to record the histories on a dev server", recordEnv)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	t.Cleanup(cancel)
	srv, err := devserver.Start(ctx, devserver.Config{DynamicConfig: dc})
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, srv.Stop()) })
	return srv.Client, ctx
}

// startRecorder starts a worker on recordQueue with every workflow type
// the planmode worker registers (worker/planworker), under the same
// names, and acts as its activities; it stops when t ends.
func startRecorder(t *testing.T, c client.Client, acts scripted) {
	t.Helper()
	w := worker.New(c, recordQueue, worker.Options{})
	w.RegisterWorkflowWithOptions(PlanMode, workflow.RegisterOptions{Name: signals.WorkflowType})
	w.RegisterWorkflowWithOptions(PlanNotify, workflow.RegisterOptions{Name: signals.NotifyWorkflowType})
	w.RegisterWorkflowWithOptions(PlanRollback, workflow.RegisterOptions{Name: signals.RollbackWorkflowType})
	w.RegisterWorkflowWithOptions(PlanWorkspaceLease, workflow.RegisterOptions{Name: signals.LeaseWorkflowType})
	w.RegisterActivity(&acts)
	require.NoError(t, w.Start())
	t.Cleanup(w.Stop)
}

// recorder is recordServer with the usual config and a started recorder.
func recorder(t *testing.T, acts scripted) (client.Client, context.Context) {
	c, ctx := recordServer(t, nil)
	startRecorder(t, c, acts)
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

// writeHistory saves the history of run runID of workflow id ("" for the
// latest run) as JSON in file.
func writeHistory(ctx context.Context, t *testing.T, c client.Client, id, runID, file string) {
	t.Helper()
	it := c.GetWorkflowHistory(ctx, id, runID, false, enumspb.HISTORY_EVENT_FILTER_TYPE_ALL_EVENT)
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
