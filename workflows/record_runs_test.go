package workflows

import (
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/sdk/client"

	"github.com/planmode/planmode/activities"
	"github.com/planmode/planmode/plan"
	"github.com/planmode/planmode/signals"
)

// The TestRecord tests record the baseline the replay test replays
// (replay_test.go): one history per workflow type and ending, named
// <type>-<ending>.json in testdata.

// TestRecordCompletedHistory runs one full PlanMode — a clarifying
// question, a selection, a skip confirmation, an edit, a pause and a
// resume, a rollback, its workspace leased and released — and writes its
// history, and that of its first webhook delivery (a PlanNotify child
// that completes).
func TestRecordCompletedHistory(t *testing.T) {
	c, ctx := recorder(t, scripted{})
	id := fmt.Sprintf("planmode-record-%d", time.Now().UnixNano())
	// One step at a time, so s1's reflection finds s2 pending.
	req := signals.StartRequest{Goal: "Add JWT authentication", Workspace: "/srv/repo", Clarify: signals.ClarifyPolicy{AskQuestions: true},
		Execution: signals.ExecutionPolicy{Parallelism: 1}}
	run, err := c.ExecuteWorkflow(ctx, client.StartWorkflowOptions{ID: id, TaskQueue: recordQueue}, signals.WorkflowType, req)
	require.NoError(t, err)
	drive(ctx, t, c, id)

	var res signals.Result
	require.NoError(t, run.Get(ctx, &res))
	require.Equal(t, signals.StatusCompleted, res.Status, res.Error)
	writeHistory(ctx, t, c, id, run.GetRunID(), testdata("planmode-completed.json"))

	child := fmt.Sprintf("%s/notify/%s/%d", id, run.GetRunID(), 1)
	var out activities.NotifyOutput
	require.NoError(t, c.GetWorkflow(ctx, child, "").Get(ctx, &out))
	require.True(t, out.Sent)
	writeHistory(ctx, t, c, child, "", testdata("plannotify-completed.json"))
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
	writeHistory(ctx, t, c, id, run.GetRunID(), testdata("planmode-failed.json"))
}

// TestRecordCancelledHistory records a run cancelled through Temporal
// while it waits for a skip confirmation: it ends Canceled with the
// Result.
func TestRecordCancelledHistory(t *testing.T) {
	c, ctx := recorder(t, scripted{})
	id := fmt.Sprintf("planmode-record-cancelled-%d", time.Now().UnixNano())
	// One step at a time, so s1's reflection finds s2 pending.
	req := signals.StartRequest{Goal: "Add JWT authentication", Workspace: "/srv/repo", Execution: signals.ExecutionPolicy{Parallelism: 1}}
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
	writeHistory(ctx, t, c, id, run.GetRunID(), testdata("planmode-cancelled.json"))
}

// continueAfterEvents is the history length past which the server of
// TestRecordContinuedHistory suggests continue-as-new: short enough that
// a run suggests it by the end of its first step.
const continueAfterEvents = 30

// TestRecordContinuedHistory records the first run of a plan that
// continues as new: its server suggests it (recorded in the workflow
// task, so the replay sees the same suggestion), and the run hands its
// state on at the step boundary after its first step. The chain runs to
// its end.
func TestRecordContinuedHistory(t *testing.T) {
	c, ctx := recordServer(t, map[string]string{"limit.historyCount.suggestContinueAsNew": fmt.Sprint(continueAfterEvents)})
	startRecorder(t, c, scripted{})
	id := fmt.Sprintf("planmode-record-continued-%d", time.Now().UnixNano())
	req := signals.StartRequest{Goal: "Add JWT authentication", Workspace: "/srv/repo",
		Selection: signals.SelectionPolicy{Mode: signals.SelectAuto},
		Execution: signals.ExecutionPolicy{Mode: signals.ExecEfficient, Parallelism: 1}}
	run, err := c.ExecuteWorkflow(ctx, client.StartWorkflowOptions{ID: id, TaskQueue: recordQueue}, signals.WorkflowType, req)
	require.NoError(t, err)
	first := run.GetRunID() // Get follows the chain, and GetRunID with it

	var res signals.Result
	require.NoError(t, run.Get(ctx, &res), "the chain completes")
	require.Equal(t, signals.StatusCompleted, res.Status, res.Error)
	d, err := c.DescribeWorkflow(ctx, id, first)
	require.NoError(t, err)
	require.Equal(t, enumspb.WORKFLOW_EXECUTION_STATUS_CONTINUED_AS_NEW, d.Status)
	writeHistory(ctx, t, c, id, first, testdata("planmode-continued.json"))
}

// TestRecordRollbackHistory records the rollback of an ended plan whose
// workspace nobody changed since: it restores the snapshot and
// completes.
func TestRecordRollbackHistory(t *testing.T) {
	c, ctx := recorder(t, scripted{})
	planID := fmt.Sprintf("planmode-record-ended-%d", time.Now().UnixNano())
	id := signals.RollbackWorkflowID(planID, 1)
	run, err := c.ExecuteWorkflow(ctx, client.StartWorkflowOptions{ID: id, TaskQueue: recordQueue},
		signals.RollbackWorkflowType, signals.RollbackPlanRequest{PlanID: planID})
	require.NoError(t, err)

	var res signals.RollbackPlanResult
	require.NoError(t, run.Get(ctx, &res))
	require.Equal(t, []string{"a.go"}, res.Restored)
	writeHistory(ctx, t, c, id, run.GetRunID(), testdata("planrollback-completed.json"))
}

// TestRecordWorkspacesHistory records a PlanWorkspaceLease run to its
// usual end under load: continue-as-new after leaseInputsPerRun inputs.
// Most of them are release signals sent before any worker polls (one of
// them not a request at all), so that they arrive in one workflow task
// and the history stays short; then an exclusive lease and intents are
// acquired, one refused, and released by update until the run hands its
// marks on.
func TestRecordWorkspacesHistory(t *testing.T) {
	c, ctx := recordServer(t, nil)
	id := fmt.Sprintf("planmode-record-lease-%d", time.Now().UnixNano())
	run, err := c.ExecuteWorkflow(ctx, client.StartWorkflowOptions{ID: id, TaskQueue: recordQueue},
		signals.LeaseWorkflowType, signals.WorkspaceLeases{Key: "team"})
	require.NoError(t, err)
	const updates = 4 // that count as inputs, below
	gone := signals.WorkspaceLeaseRequest{Key: "team/gone", PlanID: "plan-gone", RunID: "run-gone"}
	require.NoError(t, c.SignalWorkflow(ctx, id, "", signals.ReleaseWorkspace.Name, "not a request"))
	for range leaseInputsPerRun - updates - 1 {
		require.NoError(t, signals.ReleaseWorkspace.Signal(ctx, c, id, gone))
	}
	startRecorder(t, c, scripted{})

	a := signals.WorkspaceLeaseRequest{Key: "team", PlanID: "plan-A", RunID: "run-A"}
	_, err = signals.AcquireWorkspace.Update(ctx, c, id, a)
	require.NoError(t, err)
	_, err = signals.AcquireWorkspace.Update(ctx, c, id, signals.WorkspaceLeaseRequest{Key: "team/b", PlanID: "plan-B", RunID: "run-B"})
	_, busy := signals.BusyHolder(err)
	require.True(t, busy, "an intent under another plan's lease is refused: %v", err)
	rel, err := signals.ReleaseWorkspace.Update(ctx, c, id, a)
	require.NoError(t, err)
	require.True(t, rel.Released)
	_, err = signals.AcquireWorkspace.Update(ctx, c, id, signals.WorkspaceLeaseRequest{Key: "team/b", PlanID: "plan-B", RunID: "run-B"})
	require.NoError(t, err)
	_, err = signals.AcquireWorkspace.Update(ctx, c, id, signals.WorkspaceLeaseRequest{Key: "team/c", PlanID: "plan-C", RunID: "run-C"})
	require.NoError(t, err)

	require.Eventually(t, func() bool {
		d, err := c.DescribeWorkflow(ctx, id, run.GetRunID())
		return err == nil && d.Status == enumspb.WORKFLOW_EXECUTION_STATUS_CONTINUED_AS_NEW
	}, 30*time.Second, 50*time.Millisecond, "the lease workflow never continued as new")
	writeHistory(ctx, t, c, id, run.GetRunID(), testdata("planworkspacelease-continued.json"))
}

// TestRecordFilesHistory records a run that keeps its files as manifests:
// two writes side by side (one in place, one in a copy merged after), a
// step after both, a rollback to the first step while held, the end's
// sync of the folder; and a fork of such a plan. Its worker has no
// webhook, so the runs start no deliveries.
func TestRecordFilesHistory(t *testing.T) {
	c, ctx := recorder(t, scripted{files: true, noWebhook: true})
	id := fmt.Sprintf("planmode-record-files-%d", time.Now().UnixNano())
	write := func(id, path string, deps ...string) plan.Step {
		s := toolStep(id, "write_file", map[string]any{"path": path, "content": id})
		s.DependsOn = deps
		return s
	}
	hold := write("s3", "c.go", "s1", "s2")
	req := signals.StartRequest{Goal: "Add JWT authentication", Workspace: "/srv/repo",
		Plan:      &signals.ExternalPlan{Steps: []plan.Step{write("s1", "a.go"), write("s2", "b.go"), hold}},
		Execution: signals.ExecutionPolicy{Parallelism: 2},
		Approval: signals.ApprovalPolicy{Rules: plan.ApprovalRules{{Match: "write_file", Args: map[string]string{"path": "c.go"},
			Action: plan.ApprovalAsk}}}}
	run, err := c.ExecuteWorkflow(ctx, client.StartWorkflowOptions{ID: id, TaskQueue: recordQueue}, signals.WorkflowType, req)
	require.NoError(t, err)
	waitFor(ctx, t, c, id, signals.AwaitingApproval)
	_, err = signals.Rollback.Update(ctx, c, id, signals.RollbackRequest{StepID: "s1"})
	require.NoError(t, err)
	p, err := signals.PendingQuery.Get(ctx, c, id)
	require.NoError(t, err)
	require.NotEmpty(t, p.Approvals)
	_, err = signals.ApproveToolCall.Update(ctx, c, id, signals.ApproveToolCallRequest{RequestID: p.Approvals[0].RequestID})
	require.NoError(t, err)
	var res signals.Result
	require.NoError(t, run.Get(ctx, &res))
	require.Equal(t, signals.StatusCompleted, res.Status, res.Error)
	require.NotEmpty(t, res.Manifest)
	writeHistory(ctx, t, c, id, run.GetRunID(), testdata("planmode-files.json"))

	fork := fmt.Sprintf("planmode-record-fork-%d", time.Now().UnixNano())
	run, err = c.ExecuteWorkflow(ctx, client.StartWorkflowOptions{ID: fork, TaskQueue: recordQueue}, signals.WorkflowType,
		signals.StartRequest{Workspace: "/srv/fork", Fork: &signals.ForkRef{PlanID: id, StepID: "s2"}})
	require.NoError(t, err)
	res = signals.Result{}
	require.NoError(t, run.Get(ctx, &res))
	require.Equal(t, signals.StatusCompleted, res.Status, res.Error)
	require.NotNil(t, res.ForkedFrom)
	writeHistory(ctx, t, c, fork, run.GetRunID(), testdata("planmode-forked.json"))
}
