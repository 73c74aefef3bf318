package testsuite

import (
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	enumspb "go.temporal.io/api/enums/v1"
	workflowpb "go.temporal.io/api/workflow/v1"

	"github.com/planmode/planmode/internal/config"
	"github.com/planmode/planmode/internal/devserver"
	"github.com/planmode/planmode/plan"
	"github.com/planmode/planmode/planclient"
	"github.com/planmode/planmode/signals"
)

// offlineLatency slows the offline model down enough that a test can
// catch a plan between its first and its last step.
const offlineLatency = "50ms"

// Failover settings: every offline reply takes callLatency, so a test
// surely catches an LLM activity in flight, and a plan's activities are
// retried failoverHeartbeat after their worker went silent.
const (
	callLatency       = "300ms"
	failoverHeartbeat = 2 * time.Second
)

// lockedBuffer collects a process's output while the test reads it.
type lockedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// workerProcess is a planmode-worker running as its own process group.
type workerProcess struct {
	cmd    *exec.Cmd
	out    *lockedBuffer
	exited chan struct{}
	err    error
}

// buildWorker builds the planmode-worker binary into a temporary folder.
func buildWorker(t *testing.T) string {
	t.Helper()
	root, err := devserver.RepoRoot()
	require.NoError(t, err)
	bin := filepath.Join(t.TempDir(), "planmode-worker")
	cmd := exec.Command("go", "build", "-o", bin, "./worker")
	cmd.Dir = root
	start := time.Now()
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "go build ./worker: %s", out)
	t.Logf("built the worker in %s", time.Since(start).Round(time.Millisecond))
	return bin
}

// workerEnv is this process's environment without PLANMODE_ variables,
// plus settings (config keys to values) as PLANMODE_ variables. Snapshots
// go to a fresh cache folder; Go keeps its own build cache.
func workerEnv(t *testing.T, settings map[string]string) []string {
	t.Helper()
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, config.EnvPrefix+"_") {
			env = append(env, kv)
		}
	}
	if os.Getenv("GOCACHE") == "" {
		if dir, err := os.UserCacheDir(); err == nil {
			env = append(env, "GOCACHE="+filepath.Join(dir, "go-build"))
		}
	}
	env = append(env, "XDG_CACHE_HOME="+t.TempDir())
	for k, v := range settings {
		env = append(env, config.EnvName(k)+"="+v)
	}
	return env
}

// startWorkerProcess runs bin with args and env in an empty folder and
// waits until it says it started. It is killed, if still running, when t
// ends.
func startWorkerProcess(t *testing.T, bin string, env []string, args ...string) *workerProcess {
	t.Helper()
	wp := &workerProcess{cmd: exec.Command(bin, args...), out: &lockedBuffer{}, exited: make(chan struct{})}
	wp.cmd.Env, wp.cmd.Dir = env, t.TempDir()
	wp.cmd.Stdout, wp.cmd.Stderr = wp.out, wp.out
	wp.cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	require.NoError(t, wp.cmd.Start())
	go func() {
		wp.err = wp.cmd.Wait()
		close(wp.exited)
	}()
	t.Cleanup(wp.kill)
	require.Eventually(t, func() bool {
		select {
		case <-wp.exited:
			return true
		default:
			return strings.Contains(wp.out.String(), "worker started")
		}
	}, loadedWait, 20*time.Millisecond, "the worker starts")
	select {
	case <-wp.exited:
		t.Fatalf("the worker exited: %v\n%s", wp.err, wp.out)
	default:
	}
	return wp
}

// kill SIGKILLs the worker's process group (the worker and any command a
// tool started) and waits for the worker to exit.
func (wp *workerProcess) kill() {
	select {
	case <-wp.exited:
		return
	default:
	}
	_ = syscall.Kill(-wp.cmd.Process.Pid, syscall.SIGKILL)
	<-wp.exited
}

// workerRig returns the shared dev server, the worker binary and the
// environment of an offline worker process on a task queue, whose
// workspace root of its own holds a copy of the demo workspace
// (workspace, the path plans name), with settings (config keys to values)
// on top.
func workerRig(t *testing.T, settings map[string]string) (srv *devserver.DevServer, bin string, env []string, queue, workspace string) {
	t.Helper()
	srv, bin = StartDevServer(t), buildWorker(t)
	queue = TaskQueue(t)
	root, workspace := copyDemoWorkspace(t)
	all := map[string]string{
		config.KeyAddress: srv.Address(), config.KeyNamespace: srv.Namespace, config.KeyTaskQueue: queue,
		config.KeyWorkspaceRoot: root, config.KeyLLMOffline: "true", config.KeyLogLevel: "info",
	}
	for k, v := range settings {
		all[k] = v
	}
	return srv, bin, workerEnv(t, all), queue, workspace
}

// TestKilledWorkerDoesNotLoseThePlan runs a plan on a worker process, kills
// that process with SIGKILL once a step has completed, resumes the run
// while no worker is alive, and lets a new worker process finish it: the
// run stays open, the new process replays its history, and every step ran
// exactly once.
func TestKilledWorkerDoesNotLoseThePlan(t *testing.T) {
	t.Parallel()
	srv, bin, env, queue, workspace := workerRig(t, map[string]string{config.KeyOfflineLatency: offlineLatency})
	first := startWorkerProcess(t, bin, env)

	ctx, cancel := testContext(t)
	defer cancel()
	pc := planclient.New(srv.Client, planclient.WithTaskQueue(queue))
	id := "plan-kill-" + queue
	_, err := pc.Start(ctx, id, signals.StartRequest{
		Goal: "Add a percentage discount to the cart total", Workspace: workspace,
		Selection: signals.SelectionPolicy{Mode: signals.SelectAuto},
	})
	require.NoError(t, err)

	require.Eventually(t, func() bool {
		p, err := pc.Progress(ctx, id)
		return err == nil && p.Totals.Completed >= 1
	}, loadedWait, 10*time.Millisecond, "a first step completes")
	holdAtStepBoundary(ctx, t, pc, id)
	before, err := pc.Plan(ctx, id)
	require.NoError(t, err)
	done := before.Plan.Progress().Totals()
	require.GreaterOrEqual(t, done.Completed, 1)
	require.Less(t, done.Completed, done.Total, "the plan is caught midway")

	first.kill()
	require.True(t, errKilled(first.err), "the first worker died of SIGKILL: %v", first.err)
	desc, err := srv.Client.DescribeWorkflow(ctx, id, "")
	require.NoError(t, err)
	assert.Equal(t, enumspb.WORKFLOW_EXECUTION_STATUS_RUNNING, desc.RawResponse.GetWorkflowExecutionInfo().GetStatus(), "the run outlives its worker")

	require.NoError(t, signals.Resume.Signal(ctx, srv.Client, id, signals.ControlRequest{Reason: "new worker"}),
		"the run takes input while no worker is alive")
	second := startWorkerProcess(t, bin, env)

	res, err := pc.Result(ctx, id)
	require.NoError(t, err, "worker output:\n%s", second.out)
	assert.Equal(t, signals.StatusCompleted, res.Status, res.Error)
	require.NotNil(t, res.Plan)
	assert.Len(t, res.Plan.Steps, done.Total)
	assertStepsRanOnce(t, before.Plan, res.Plan)
	assertRanOnceAcrossWorkers(ctx, t, srv, id)
}

// assertStepsRanOnce checks that every step of the final plan completed at
// its first attempt, and that the steps completed before the kill (in
// before) kept their results instead of running again.
func assertStepsRanOnce(t *testing.T, before, final *plan.Plan) {
	t.Helper()
	for _, s := range final.Steps {
		assert.Equal(t, plan.StepCompleted, s.Status, "step %s", s.ID)
		if assert.NotNil(t, s.Result, "step %s", s.ID) {
			assert.Equal(t, 1, s.Result.Attempts, "step %s ran once", s.ID)
		}
	}
	for _, s := range before.Steps {
		if s.Status != plan.StepCompleted {
			continue
		}
		after := final.StepByID(s.ID)
		require.NotNil(t, after, "step %s", s.ID)
		assert.Equal(t, s.EndedAt, after.EndedAt, "step %s, finished before the kill, did not run again", s.ID)
	}
}

// holdAtStepBoundary pauses run id and waits until it holds at a step
// boundary with no activity running, so that killing its worker loses no
// work in flight (which Temporal would retry only after the activity's
// heartbeat timeout).
func holdAtStepBoundary(ctx context.Context, t *testing.T, pc *planclient.Client, id string) {
	t.Helper()
	_, err := pc.Pause(ctx, id, signals.ControlRequest{Reason: "move to another worker"})
	require.NoError(t, err)
	require.Eventually(t, func() bool {
		v, err := pc.Plan(ctx, id)
		if err != nil || v.Plan == nil || v.Plan.Status != plan.PlanPaused {
			return false
		}
		d, err := pc.Temporal().DescribeWorkflow(ctx, id, "")
		return err == nil && len(d.RawResponse.GetPendingActivities()) == 0
	}, loadedWait, 20*time.Millisecond, "the run holds at a step boundary")
}

// assertRanOnceAcrossWorkers reads the history of run id: both worker
// processes completed workflow tasks, none failed (the new process
// replayed the history without a nondeterminism error), and no activity
// was started more than once.
func assertRanOnceAcrossWorkers(ctx context.Context, t *testing.T, srv *devserver.DevServer, id string) {
	t.Helper()
	identities := map[string]bool{}
	it := srv.Client.GetWorkflowHistory(ctx, id, "", false, enumspb.HISTORY_EVENT_FILTER_TYPE_ALL_EVENT)
	for it.HasNext() {
		ev, err := it.Next()
		require.NoError(t, err)
		switch ev.GetEventType() {
		case enumspb.EVENT_TYPE_WORKFLOW_TASK_COMPLETED:
			identities[ev.GetWorkflowTaskCompletedEventAttributes().GetIdentity()] = true
		case enumspb.EVENT_TYPE_WORKFLOW_TASK_FAILED:
			t.Errorf("workflow task failed: %v", ev.GetWorkflowTaskFailedEventAttributes().GetFailure().GetMessage())
		case enumspb.EVENT_TYPE_ACTIVITY_TASK_STARTED:
			a := ev.GetActivityTaskStartedEventAttributes()
			assert.EqualValues(t, 1, a.GetAttempt(), "activity of event %d ran once", a.GetScheduledEventId())
		}
	}
	assert.Len(t, identities, 2, "each worker process did part of the run: %v", identities)
}

// errKilled reports whether err is a process's death by SIGKILL.
func errKilled(err error) bool {
	var exit *exec.ExitError
	if !errors.As(err, &exit) {
		return false
	}
	ws, ok := exit.Sys().(syscall.WaitStatus)
	return ok && ws.Signaled() && ws.Signal() == syscall.SIGKILL
}

// TestWorkerKilledMidActivityResumesOnAnother kills a worker process with
// SIGKILL while one of its LLM activities is running, after a first step
// completed, and starts a new worker process: the plan's 2 s heartbeat
// timeout moves the interrupted activity to the new worker within
// seconds, and the run completes with every step completed.
func TestWorkerKilledMidActivityResumesOnAnother(t *testing.T) {
	t.Parallel()
	srv, bin, env, queue, workspace := workerRig(t, map[string]string{
		config.KeyOfflineLatency: callLatency,
		// The run's next workflow task leaves the dead worker's sticky
		// queue after 1s instead of the SDK's 5s.
		config.KeyStickyTimeout: "1s",
	})
	first := startWorkerProcess(t, bin, env)

	ctx, cancel := testContext(t)
	defer cancel()
	pc := planclient.New(srv.Client, planclient.WithTaskQueue(queue))
	id := "plan-failover-" + queue
	_, err := pc.Start(ctx, id, signals.StartRequest{
		Goal: "Add a percentage discount to the cart total", Workspace: workspace,
		Selection: signals.SelectionPolicy{Mode: signals.SelectAuto},
		Execution: signals.ExecutionPolicy{HeartbeatTimeout: plan.Duration(failoverHeartbeat)},
	})
	require.NoError(t, err)

	inFlight := awaitRunningActivity(ctx, t, pc, id)
	first.kill()
	killedAt := time.Now()
	require.True(t, errKilled(first.err), "the first worker died of SIGKILL: %v", first.err)
	t.Logf("killed the worker %s into %s (activity %s)", killedAt.Sub(inFlight.GetLastStartedTime().AsTime()).Round(time.Millisecond),
		inFlight.GetActivityType().GetName(), inFlight.GetActivityId())
	second := startWorkerProcess(t, bin, env)

	res, err := pc.Result(ctx, id)
	require.NoError(t, err, "worker output:\n%s", second.out)
	t.Logf("the run completed %s after the kill", time.Since(killedAt).Round(time.Millisecond))
	assert.Equal(t, signals.StatusCompleted, res.Status, res.Error)
	require.NotNil(t, res.Plan)
	require.NotEmpty(t, res.Plan.Steps)
	for _, s := range res.Plan.Steps {
		assert.Equal(t, plan.StepCompleted, s.Status, "step %s", s.ID)
	}
	assertFailedOver(ctx, t, srv, id, inFlight, killedAt)
}

// llmActivities are the activities that wait for the model: with the
// offline model's latency they are the ones a test can catch running.
var llmActivities = map[string]bool{
	"Clarify": true, "GenerateOptions": true, "ExecuteLLMStep": true, "AgentTurn": true, "Reflect": true, "Summarize": true,
}

// awaitRunningActivity polls the progress query and the run's description
// until a step has completed and an LLM activity runs on a worker as the
// run's only work in flight (no other activity, and no workflow task: a
// kill would hold that up for the workflow task timeout), and returns it.
func awaitRunningActivity(ctx context.Context, t *testing.T, pc *planclient.Client, id string) *workflowpb.PendingActivityInfo {
	t.Helper()
	var running *workflowpb.PendingActivityInfo
	require.Eventually(t, func() bool {
		p, err := pc.Progress(ctx, id)
		if err != nil || p.Totals.Completed < 1 {
			return false
		}
		d, err := pc.Temporal().DescribeWorkflow(ctx, id, "")
		if err != nil || d.RawResponse.GetPendingWorkflowTask() != nil || len(d.RawResponse.GetPendingActivities()) != 1 {
			return false
		}
		a := d.RawResponse.GetPendingActivities()[0]
		if a.GetState() != enumspb.PENDING_ACTIVITY_STATE_STARTED || a.GetAttempt() != 1 || !llmActivities[a.GetActivityType().GetName()] {
			return false
		}
		running = a
		return true
	}, loadedWait, 5*time.Millisecond, "an LLM activity runs after a first step completed")
	return running
}

// assertFailedOver reads the history of run id: the activity that was in
// flight at the kill ran again at its second attempt, on another worker,
// after a heartbeat timeout, within seconds of the kill (the plan's
// heartbeat timeout and the first retry's wait, not the default 30 s;
// not checked when killedAt is zero); no workflow task failed.
func assertFailedOver(ctx context.Context, t *testing.T, srv *devserver.DevServer, id string,
	killed *workflowpb.PendingActivityInfo, killedAt time.Time) {
	t.Helper()
	var scheduled int64
	var retried bool
	it := srv.Client.GetWorkflowHistory(ctx, id, "", false, enumspb.HISTORY_EVENT_FILTER_TYPE_ALL_EVENT)
	for it.HasNext() {
		ev, err := it.Next()
		require.NoError(t, err)
		switch ev.GetEventType() {
		case enumspb.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED:
			if ev.GetActivityTaskScheduledEventAttributes().GetActivityId() == killed.GetActivityId() {
				scheduled = ev.GetEventId()
			}
		case enumspb.EVENT_TYPE_ACTIVITY_TASK_STARTED:
			a := ev.GetActivityTaskStartedEventAttributes()
			if scheduled == 0 || a.GetScheduledEventId() != scheduled {
				continue
			}
			retried = true
			assert.EqualValues(t, 2, a.GetAttempt(), "the interrupted activity ran again once")
			assert.Equal(t, enumspb.TIMEOUT_TYPE_HEARTBEAT, a.GetLastFailure().GetTimeoutFailureInfo().GetTimeoutType(),
				"its first attempt ended in a heartbeat timeout: %v", a.GetLastFailure())
			assert.NotEqual(t, killed.GetLastWorkerIdentity(), a.GetIdentity(), "another worker ran it")
			if !killedAt.IsZero() {
				assert.Less(t, ev.GetEventTime().AsTime().Sub(killedAt), 3*failoverHeartbeat, "it moved on within seconds")
			}
		case enumspb.EVENT_TYPE_WORKFLOW_TASK_FAILED:
			t.Errorf("workflow task failed: %v", ev.GetWorkflowTaskFailedEventAttributes().GetFailure().GetMessage())
		}
	}
	require.NotZero(t, scheduled, "activity %s is in the history", killed.GetActivityId())
	assert.True(t, retried, "activity %s started again after the kill", killed.GetActivityId())
}
