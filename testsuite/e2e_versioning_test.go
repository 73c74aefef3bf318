package testsuite

import (
	"context"
	"path/filepath"
	"regexp"
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	enumspb "go.temporal.io/api/enums/v1"
	historypb "go.temporal.io/api/history/v1"
	"go.temporal.io/sdk/client"

	"github.com/planmode/planmode/internal/config"
	"github.com/planmode/planmode/internal/devserver"
	"github.com/planmode/planmode/planclient"
	"github.com/planmode/planmode/signals"
)

// versioningGoal is a goal the offline model plans in several steps, so
// that a plan has step boundaries to continue as new at.
const versioningGoal = "Add a percentage discount to the cart total"

// TestPlansStayOnTheirBuildAndMoveAtContinueAsNew rolls a deployment
// from build A to build B with two worker processes, as docs/deploy.md
// tells an operator to. A's worker, the first of the deployment, makes
// itself current; a plan starts on A and waits for its selection; B's
// worker starts beside A and stays a bystander until the operator runs
// `temporal worker deployment set-current-version`. The plan started on A
// stays pinned to A: A handles its selection and runs its first step.
// At that step boundary the plan continues as new, because the target
// build changed, and its continuation runs on B to the end. A plan
// started after the switch runs on B alone.
func TestPlansStayOnTheirBuildAndMoveAtContinueAsNew(t *testing.T) {
	t.Parallel()
	deployment := "planmode-" + TaskQueue(t)
	srv, bin, env, queue, workspace := workerRig(t, map[string]string{config.KeyDeploymentName: deployment})
	ctx, cancel := testContext(t)
	defer cancel()
	c := srv.Client

	a := startWorkerProcess(t, bin, env)
	buildA := startedBuild(t, a)
	require.Contains(t, a.out.String(), "made this build the deployment's current version",
		"the first build of a deployment makes itself current")
	assert.Equal(t, buildA, currentBuild(ctx, t, c, deployment))

	pc := planclient.New(c, planclient.WithTaskQueue(queue))
	early := "plan-early-" + queue
	_, err := pc.StartAndGetOptions(ctx, early, signals.StartRequest{Goal: versioningGoal, Workspace: workspace, OptionCount: 1})
	require.NoError(t, err)

	const buildB = "b-build"
	b := startWorkerProcess(t, bin, append(env, config.EnvName(config.KeyBuildID)+"="+buildB))
	assert.Equal(t, buildB, startedBuild(t, b))
	assert.Contains(t, b.out.String(), "set-current-version --namespace "+srv.Namespace+" --deployment-name "+deployment+" --build-id "+buildB,
		"a later build says how to make it current")
	assert.Equal(t, buildA, currentBuild(ctx, t, c, deployment), "a later build does not make itself current")

	switched := time.Now()
	_, err = temporalCLI(t, srv, "worker", "deployment", "set-current-version",
		"--deployment-name", deployment, "--build-id", buildB, "--yes")
	require.NoError(t, err)
	assert.Equal(t, buildB, currentBuild(ctx, t, c, deployment))
	assertPinnedTo(ctx, t, c, early, "", buildA, "an open plan stays on the build that started it")

	late := "plan-late-" + queue
	second := filepath.Join(filepath.Dir(workspace), "second")
	require.NoError(t, devserver.CopyDemoWorkspace(second))
	_, err = pc.Start(ctx, late, signals.StartRequest{Goal: versioningGoal, Workspace: second,
		Selection: signals.SelectionPolicy{Mode: signals.SelectAuto}})
	require.NoError(t, err)

	_, err = pc.Select(ctx, early, signals.SelectOptionRequest{Rank: 1})
	require.NoError(t, err)
	for _, id := range []string{early, late} {
		res, err := pc.Result(ctx, id)
		require.NoError(t, err, "A's log:\n%s\nB's log:\n%s", a.out, b.out)
		require.Equal(t, signals.StatusCompleted, res.Status, res.Error)
	}

	runs := runChain(ctx, t, c, early)
	require.GreaterOrEqual(t, len(runs), 2, "the early plan continued as new")
	first := runs[0]
	t.Logf("the early plan ran %d runs; the first, on A, held %d events and %d activities; both plans ended %s after the switch",
		len(runs), first.length, len(first.activityIdentities), time.Since(switched).Round(time.Millisecond))
	assert.Equal(t, []string{buildA}, first.builds, "A ran the early plan's first run, after the switch too")
	assert.True(t, first.lastTask.After(switched), "A handled the selection after B became current")
	assert.NotEmpty(t, first.activityIdentities, "the first run ran activities (the first step)")
	for _, id := range first.activityIdentities {
		assert.Equal(t, buildA, first.identityBuild[id], "A's worker ran the first run's activities")
	}
	assert.Less(t, first.length, 4000, "it continued because the target changed, not for its history")
	next := runs[1].started
	assert.Nil(t, next.GetInheritedPinnedVersion(), "the continuation did not inherit A's pin")
	assert.Equal(t, enumspb.CONTINUE_AS_NEW_VERSIONING_BEHAVIOR_AUTO_UPGRADE,
		next.GetInheritedAutoUpgradeInfo().GetContinueAsNewInitialVersioningBehavior(), "it started on the current build")
	for _, r := range runs[1:] {
		assert.Equal(t, []string{buildB}, r.builds, "B runs every continuation")
	}
	last := runs[len(runs)-1]
	assertPinnedTo(ctx, t, c, early, last.runID, buildB, "the continuation pins itself to B")

	lateRuns := runChain(ctx, t, c, late)
	for _, r := range lateRuns {
		assert.Equal(t, []string{buildB}, r.builds, "a plan started after the switch runs on B")
	}
	assertPinnedTo(ctx, t, c, late, lateRuns[len(lateRuns)-1].runID, buildB, "")
}

// TestUnversionedWorkerRunsAPlan runs a worker with worker.versioning
// off: it says so, and a plan runs to the end with no deployment on any
// of its tasks, as before worker versioning.
func TestUnversionedWorkerRunsAPlan(t *testing.T) {
	t.Parallel()
	srv, bin, env, queue, workspace := workerRig(t, map[string]string{config.KeyVersioning: "false"})
	wp := startWorkerProcess(t, bin, env)
	assert.Contains(t, wp.out.String(), "versioning=false")
	assert.NotContains(t, wp.out.String(), "deployment's current version")

	ctx, cancel := testContext(t)
	defer cancel()
	pc := planclient.New(srv.Client, planclient.WithTaskQueue(queue))
	id := "plan-unversioned-" + queue
	_, err := pc.Start(ctx, id, signals.StartRequest{Goal: versioningGoal, Workspace: workspace,
		Selection: signals.SelectionPolicy{Mode: signals.SelectAuto}})
	require.NoError(t, err)
	res, err := pc.Result(ctx, id)
	require.NoError(t, err, "worker output:\n%s", wp.out)
	require.Equal(t, signals.StatusCompleted, res.Status, res.Error)

	for _, r := range runChain(ctx, t, srv.Client, id) {
		assert.Equal(t, []string{""}, r.builds, "no deployment version on any task")
	}
	desc, err := srv.Client.DescribeWorkflow(ctx, id, "")
	require.NoError(t, err)
	assert.Nil(t, desc.RawResponse.GetWorkflowExecutionInfo().GetVersioningInfo(), "the run is unversioned")
}

var buildIDField = regexp.MustCompile(`msg="worker started".* buildId=(\S+) current=`)

// startedBuild is the build id a worker's start line names.
func startedBuild(t *testing.T, wp *workerProcess) string {
	t.Helper()
	m := buildIDField.FindStringSubmatch(wp.out.String())
	require.NotNil(t, m, "the start line names the build: %s", wp.out)
	return m[1]
}

// currentBuild is the build id of the deployment's current version, ""
// when there is none.
func currentBuild(ctx context.Context, t *testing.T, c client.Client, deployment string) string {
	t.Helper()
	d, err := c.WorkerDeploymentClient().GetHandle(deployment).Describe(ctx, client.WorkerDeploymentDescribeOptions{})
	require.NoError(t, err)
	if cur := d.Info.RoutingConfig.CurrentVersion; cur != nil {
		return cur.BuildID
	}
	return ""
}

// assertPinnedTo checks that run runID of id ("" for the latest) is
// pinned to build.
func assertPinnedTo(ctx context.Context, t *testing.T, c client.Client, id, runID, build, msg string) {
	t.Helper()
	desc, err := c.DescribeWorkflow(ctx, id, runID)
	require.NoError(t, err)
	info := desc.RawResponse.GetWorkflowExecutionInfo().GetVersioningInfo()
	assert.Equal(t, enumspb.VERSIONING_BEHAVIOR_PINNED, info.GetBehavior(), msg)
	assert.Equal(t, build, info.GetDeploymentVersion().GetBuildId(), msg)
}

// versionedRun is what one run's history says about the builds that ran
// it.
type versionedRun struct {
	runID string
	// builds are the distinct build ids of its completed workflow tasks,
	// "" for an unversioned worker.
	builds []string
	// identityBuild maps each worker identity that completed a workflow
	// task to its build.
	identityBuild map[string]string
	// activityIdentities are the workers that started its activities.
	activityIdentities []string
	// lastTask is when its last workflow task completed.
	lastTask time.Time
	// started is how it started; continued is its continue-as-new, if
	// it ended so.
	started   *historypb.WorkflowExecutionStartedEventAttributes
	continued *historypb.WorkflowExecutionContinuedAsNewEventAttributes
	// length is its number of events.
	length int
}

// runChain reads every run of id, first to last.
func runChain(ctx context.Context, t *testing.T, c client.Client, id string) []versionedRun {
	t.Helper()
	desc, err := c.DescribeWorkflow(ctx, id, "")
	require.NoError(t, err)
	var runs []versionedRun
	for runID := desc.RawResponse.GetWorkflowExecutionInfo().GetFirstRunId(); runID != ""; {
		r := readRun(ctx, t, c, id, runID)
		runs = append(runs, r)
		runID = r.continued.GetNewExecutionRunId()
	}
	return runs
}

// readRun reads one run's history.
func readRun(ctx context.Context, t *testing.T, c client.Client, id, runID string) versionedRun {
	t.Helper()
	r := versionedRun{runID: runID, identityBuild: map[string]string{}}
	it := c.GetWorkflowHistory(ctx, id, runID, false, enumspb.HISTORY_EVENT_FILTER_TYPE_ALL_EVENT)
	for it.HasNext() {
		ev, err := it.Next()
		require.NoError(t, err)
		r.length++
		switch ev.GetEventType() {
		case enumspb.EVENT_TYPE_WORKFLOW_EXECUTION_STARTED:
			r.started = ev.GetWorkflowExecutionStartedEventAttributes()
		case enumspb.EVENT_TYPE_WORKFLOW_TASK_COMPLETED:
			attrs := ev.GetWorkflowTaskCompletedEventAttributes()
			build := attrs.GetDeploymentVersion().GetBuildId()
			if !slices.Contains(r.builds, build) {
				r.builds = append(r.builds, build)
			}
			r.identityBuild[attrs.GetIdentity()] = build
			r.lastTask = ev.GetEventTime().AsTime()
		case enumspb.EVENT_TYPE_WORKFLOW_TASK_FAILED:
			t.Errorf("run %s: workflow task failed: %s", runID, ev.GetWorkflowTaskFailedEventAttributes().GetFailure().GetMessage())
		case enumspb.EVENT_TYPE_ACTIVITY_TASK_STARTED:
			r.activityIdentities = append(r.activityIdentities, ev.GetActivityTaskStartedEventAttributes().GetIdentity())
		case enumspb.EVENT_TYPE_WORKFLOW_EXECUTION_CONTINUED_AS_NEW:
			r.continued = ev.GetWorkflowExecutionContinuedAsNewEventAttributes()
		}
	}
	return r
}
