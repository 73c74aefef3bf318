package testsuite

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/sdk/temporal"

	"github.com/planmode/planmode/plan"
	"github.com/planmode/planmode/planclient"
	"github.com/planmode/planmode/signals"
)

// toolStep is a tool step of an external plan.
func toolStep(id, tool string, params map[string]any) plan.Step {
	return plan.Step{ID: id, Title: id, Action: plan.ActionTool, Estimated: plan.Duration(time.Second),
		Config: plan.StepConfig{Tool: &plan.ToolConfig{Name: tool, Params: params}}}
}

// requireWorkspaceRefused asserts plan id ended Failed as an invalid request whose
// message holds each of want.
func requireWorkspaceRefused(ctx context.Context, t *testing.T, pw *planWorker, id string, want ...string) {
	t.Helper()
	err := pw.srv.Client.GetWorkflow(ctx, id, "").Get(ctx, nil)
	var app *temporal.ApplicationError
	require.ErrorAs(t, err, &app, "plan %s", id)
	assert.Equal(t, signals.ErrorTypeInvalidRequest, app.Type())
	assert.True(t, app.NonRetryable())
	for _, w := range want {
		assert.Contains(t, app.Message(), w, "plan %s", id)
	}
	desc, err := pw.srv.Client.DescribeWorkflow(ctx, id, "")
	require.NoError(t, err)
	assert.Equal(t, enumspb.WORKFLOW_EXECUTION_STATUS_FAILED, desc.RawResponse.GetWorkflowExecutionInfo().GetStatus())
}

// TestOpenPlansNeverShareAWorkspace is the attack on a shared worker: a
// plan that names no workspace, one that names another open plan's, a
// folder inside it, or the root that holds them all. Only the first runs,
// in a folder of its own; the others fail at once naming the plan that
// holds the workspace; once that plan ends, its workspace is free again.
func TestOpenPlansNeverShareAWorkspace(t *testing.T) {
	t.Parallel()
	pw := startPlanWorker(t)
	pc := planclient.New(pw.srv.Client, planclient.WithTaskQueue(pw.queue))
	ctx, cancel := testContext(t)
	defer cancel()
	a := filepath.Join(pw.root, "a")
	require.NoError(t, os.MkdirAll(filepath.Join(a, "sub"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(a, "secret.txt"), []byte("A's secret"), 0o644))
	id := func(name string) string { return "ws-" + name + "-" + pw.queue }

	// A works in "a" and waits for its selection.
	_, err := pc.StartAndGetOptions(ctx, id("A"), signals.StartRequest{Goal: "Add a percentage discount", Workspace: "a"})
	require.NoError(t, err)

	// B names no workspace and tries A's files from where the root
	// would have put it.
	_, err = pc.Start(ctx, id("B"), signals.StartRequest{Goal: "Look around", Workspace: "", Plan: &signals.ExternalPlan{
		Steps: []plan.Step{
			toolStep("read", plan.ToolReadFile, map[string]any{"path": "a/secret.txt"}),
			toolStep("write", plan.ToolWriteFile, map[string]any{"path": "a/owned.txt", "content": "B was here"}),
		}}})
	require.NoError(t, err)
	b, err := pc.Result(ctx, id("B"))
	require.NoError(t, err)
	own := plan.DefaultWorkspace(id("B"))
	assert.Equal(t, own, b.Workspace, "B works in a folder of its own")
	read := b.Plan.StepByID("read")
	require.NotNil(t, read.Result)
	assert.False(t, read.Result.Success, "B cannot read A's secret")
	assert.NotContains(t, read.Result.Output, "A's secret")
	assert.NoFileExists(t, filepath.Join(a, "owned.txt"), "B cannot write into A's workspace")
	assert.FileExists(t, filepath.Join(pw.root, own, "a", "owned.txt"), "B's write landed in its own folder")

	// C, D and E name A's workspace, a folder inside it, and the root.
	for name, ws := range map[string]string{"C": "a", "D": "a/sub", "E": ".", "E2": pw.root} {
		req := signals.StartRequest{Goal: "Take over", Workspace: ws, Selection: signals.SelectionPolicy{Mode: signals.SelectAuto}}
		_, err := pc.Start(ctx, id(name), req)
		require.NoError(t, err)
	}
	requireWorkspaceRefused(ctx, t, pw, id("C"), `workspace "a" is held by plan `+id("A"))
	requireWorkspaceRefused(ctx, t, pw, id("D"), `workspace "a/sub" lies inside workspace "a", held by plan `+id("A"))
	requireWorkspaceRefused(ctx, t, pw, id("E"), "is the workspace root")
	requireWorkspaceRefused(ctx, t, pw, id("E2"), "is the workspace root")

	leases, err := signals.WorkspacesQuery.Get(ctx, pw.srv.Client, signals.LeaseWorkflowID(pw.queue, "a"))
	require.NoError(t, err)
	require.Len(t, leases, 1, "only A holds a: D's refused intent was given back")
	assert.Equal(t, signals.WorkspaceLease{Key: "a", PlanID: id("A"), RunID: leases[0].RunID, Since: leases[0].Since}, leases[0])
	require.Eventually(t, func() bool {
		held, err := signals.WorkspacesQuery.Get(ctx, pw.srv.Client, signals.LeaseWorkflowID(pw.queue, own))
		return err == nil && len(held) == 0
	}, loadedWait, 50*time.Millisecond, "B released its own folder")

	// G waits for "a" while A is open; once A ends, G runs there, and
	// then so does F.
	_, err = pc.Start(ctx, id("G"), signals.StartRequest{Goal: "Wait for a", Workspace: "a", OnBusy: signals.OnBusyWait,
		Plan: &signals.ExternalPlan{Steps: []plan.Step{toolStep("list", plan.ToolListFiles, map[string]any{"path": "."})}}})
	require.NoError(t, err)
	require.Eventually(t, func() bool {
		p, err := signals.PendingQuery.Get(ctx, pw.srv.Client, id("G"))
		return err == nil && p.Awaiting == signals.AwaitingWorkspace && p.Workspace != nil
	}, loadedWait, 50*time.Millisecond, "G waits for the workspace")
	require.NoError(t, pw.srv.Client.CancelWorkflow(ctx, id("A"), ""))
	g, err := pc.Result(ctx, id("G"))
	require.NoError(t, err)
	assert.Equal(t, signals.StatusCompleted, g.Status, g.Error)

	_, err = pc.Start(ctx, id("F"), signals.StartRequest{Goal: "Read the secret", Workspace: "a",
		Plan: &signals.ExternalPlan{Steps: []plan.Step{toolStep("read", plan.ToolReadFile, map[string]any{"path": "secret.txt"})}}})
	require.NoError(t, err)
	f, err := pc.Result(ctx, id("F"))
	require.NoError(t, err)
	require.Equal(t, signals.StatusCompleted, f.Status, f.Error)
	assert.Contains(t, f.Plan.StepByID("read").Result.Output, "A's secret", "a plan naming a runs there once A ended")
}

// TestStaleLeaseOfATerminatedPlanIsCleared terminates a plan, which ends
// it without releasing its workspace; the next plan that names the
// workspace finds it closed and takes the workspace.
func TestStaleLeaseOfATerminatedPlanIsCleared(t *testing.T) {
	t.Parallel()
	pw := startPlanWorker(t)
	pc := planclient.New(pw.srv.Client, planclient.WithTaskQueue(pw.queue))
	ctx, cancel := testContext(t)
	defer cancel()
	first, second := "stale-1-"+pw.queue, "stale-2-"+pw.queue

	_, err := pc.StartAndGetOptions(ctx, first, signals.StartRequest{Goal: "Add a percentage discount", Workspace: "workspace"})
	require.NoError(t, err)
	require.NoError(t, pw.srv.Client.TerminateWorkflow(ctx, first, "", "gone without a word"))

	_, err = pc.Start(ctx, second, signals.StartRequest{Goal: "Look around", Workspace: "workspace",
		Plan: &signals.ExternalPlan{Steps: []plan.Step{toolStep("list", plan.ToolListFiles, map[string]any{"path": "."})}}})
	require.NoError(t, err)
	res, err := pc.Result(ctx, second)
	require.NoError(t, err)
	assert.Equal(t, signals.StatusCompleted, res.Status, res.Error)
}
