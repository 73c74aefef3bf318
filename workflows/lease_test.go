package workflows

import (
	"encoding/json"
	"errors"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/converter"
	"go.temporal.io/sdk/interceptor"
	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"

	"github.com/planmode/planmode/activities"
	"github.com/planmode/planmode/plan"
	"github.com/planmode/planmode/signals"
)

// busy is the refusal AcquireWorkspace returns when plan-A holds "a".
func busy() error {
	holder := signals.WorkspaceLease{Key: "a", PlanID: "plan-A", RunID: "run-A"}
	return temporal.NewNonRetryableApplicationError(signals.BusyMessage("a", holder), signals.ErrorTypeWorkspaceBusy, nil, holder)
}

// requireInvalidRequest asserts the run failed at once as an invalid
// request whose message holds want.
func requireInvalidRequest(t *testing.T, h *harness, want string) {
	t.Helper()
	require.True(t, h.env.IsWorkflowCompleted())
	var app *temporal.ApplicationError
	require.ErrorAs(t, h.env.GetWorkflowError(), &app)
	assert.Equal(t, signals.ErrorTypeInvalidRequest, app.Type())
	assert.True(t, app.NonRetryable())
	assert.Contains(t, app.Message(), want)
	_, hasResult := signals.ResultFromError(h.env.GetWorkflowError())
	assert.False(t, hasResult)
}

func TestPlanWithoutWorkspaceGetsItsOwnAndLeasesItFirst(t *testing.T) {
	h := newHarness(t)
	clarify := h.f.clarify
	h.f.clarify = func(in activities.ClarifyInput) (activities.ClarifyOutput, error) {
		assert.Equal(t, 1, h.f.count("AcquireWorkspace"), "the lease comes before anything reads the workspace")
		return clarify(in)
	}
	res := h.run(autoReq())

	require.Equal(t, signals.StatusCompleted, res.Status, res.Error)
	own := plan.DefaultWorkspace("default-test-workflow-id")
	require.Len(t, h.f.acquireIn, 1)
	in := h.f.acquireIn[0]
	assert.Equal(t, own, in.Workspace, "its own folder, not the root")
	assert.True(t, in.Own, "created when missing")
	assert.Equal(t, "default-test-workflow-id", in.PlanID)
	assert.NotEmpty(t, in.RunID)
	assert.Equal(t, "default-test-taskqueue", in.TaskQueue)
	require.Len(t, h.f.clarifyIn, 1)
	assert.Equal(t, own, h.f.clarifyIn[0].Task.Context.WorkspaceRoot)

	require.Len(t, h.f.released, 1, "released once, at the end, to the one lease workflow of its folder")
	assert.Equal(t, signals.LeaseWorkflowID("default-test-taskqueue", own), h.f.released[0].registry)
	assert.Equal(t, signals.WorkspaceLeaseRequest{Key: own, PlanID: in.PlanID, RunID: in.RunID}, h.f.released[0].req)
}

func TestNestedWorkspaceReleasesEachKeyOfItsChain(t *testing.T) {
	h := newHarness(t)
	req := autoReq()
	req.Workspace = "team/shop"
	res := h.run(req)

	require.Equal(t, signals.StatusCompleted, res.Status, res.Error)
	lease := signals.WorkspaceLeaseRequest{Key: "team/shop", PlanID: "default-test-workflow-id", RunID: h.f.acquireIn[0].RunID}
	assert.ElementsMatch(t, []release{
		{registry: signals.LeaseWorkflowID("default-test-taskqueue", "team"), req: lease},
		{registry: signals.LeaseWorkflowID("default-test-taskqueue", "team/shop"), req: lease},
	}, h.f.released, "the intent on team and the lease on team/shop")
}

func TestNamedWorkspaceMustExist(t *testing.T) {
	h := newHarness(t)
	req := autoReq()
	req.Workspace = "shop"
	h.run(req)

	require.Len(t, h.f.acquireIn, 1)
	assert.False(t, h.f.acquireIn[0].Own, "a workspace the plan names is not created")
}

func TestLeaseIsReleasedHoweverThePlanEnds(t *testing.T) {
	cases := []struct {
		name  string
		setup func(h *harness)
		want  signals.Status
	}{
		{"answered", func(h *harness) {
			h.f.clarify = func(activities.ClarifyInput) (activities.ClarifyOutput, error) {
				return activities.ClarifyOutput{DirectAnswer: "42"}, nil
			}
		}, signals.StatusAnswered},
		{"failed", func(h *harness) {
			h.f.options = func(activities.OptionsInput) (activities.OptionsOutput, error) {
				return activities.OptionsOutput{}, errors.New("no model")
			}
		}, signals.StatusFailed},
		{"cancelled", func(h *harness) {
			h.at(stepTime/2, func() { h.env.CancelWorkflow() })
		}, signals.StatusCancelled},
		{"completed", func(*harness) {}, signals.StatusCompleted},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			h := newHarness(t)
			tc.setup(h)
			res := h.run(autoReq())

			require.Equal(t, tc.want, res.Status, res.Error)
			require.Len(t, h.f.released, 1)
			assert.Equal(t, plan.DefaultWorkspace("default-test-workflow-id"), h.f.released[0].req.Key)
		})
	}
}

// TestLeaseGoesBackBeforeTheSummary: nothing of the run touches the
// folder once its steps are done, so the next plan need not wait for the
// summary; and no rollback is taken once the run is ending.
//
// The order asserted is the workflow's own: the release's signal command
// is issued before the Summarize activity is scheduled, in the same
// workflow task, so the history records the release first. The test
// environment then runs the signal's mock and the activity on goroutines
// of their own, in either order, as the server delivers them: when the
// fakes ran says nothing about the order the run asked for them.
func TestLeaseGoesBackBeforeTheSummary(t *testing.T) {
	h := newHarness(t)
	seq := watchCommands(h)
	res := h.run(autoReq())

	require.Equal(t, signals.StatusCompleted, res.Status, res.Error)
	release := "signal " + signals.ReleaseWorkspace.Name
	assert.Equal(t, []string{release, "activity Summarize"}, seq.only(release, "activity Summarize"),
		"the release was sent before the summary was asked for")
	assert.Len(t, h.f.released, 1, "and only once")

	r := openRun()
	r.exec.started, r.st.SnapshotID, r.isEnding = true, "snap-1", true
	err := r.exec.validateRollback(signals.RollbackRequest{})
	require.Equal(t, signals.ErrorTypeWrongPhase, signals.RejectionType(err), err)
	assert.Contains(t, err.Error(), "the run is ending")
}

func TestBusyWorkspaceIsRefusedNamingTheHolder(t *testing.T) {
	h := newHarness(t)
	h.f.acquire = func(activities.AcquireWorkspaceInput) (activities.AcquireWorkspaceOutput, error) {
		return activities.AcquireWorkspaceOutput{}, busy()
	}
	req := autoReq()
	req.Workspace = "a"
	h.register()
	h.env.ExecuteWorkflow(PlanMode, req)

	requireInvalidRequest(t, h, `workspace "a" is held by plan plan-A`)
	assert.Equal(t, 1, h.f.count("AcquireWorkspace"), "refused, not retried")
	assert.Zero(t, h.f.count("Clarify"), "nothing touched the workspace")
	assert.Empty(t, h.f.released, "nothing to release")
}

func TestRefusedWorkspaceIsAnInvalidRequest(t *testing.T) {
	h := newHarness(t)
	h.f.acquire = func(activities.AcquireWorkspaceInput) (activities.AcquireWorkspaceOutput, error) {
		return activities.AcquireWorkspaceOutput{}, temporal.NewNonRetryableApplicationError(
			`workspace ".": invalid workspace key: "." is the whole workspace root`, activities.ErrorTypeWorkspace, nil)
	}
	req := autoReq()
	req.Workspace = "."
	h.register()
	h.env.ExecuteWorkflow(PlanMode, req)

	requireInvalidRequest(t, h, "the whole workspace root")
	assert.Zero(t, h.f.count("Clarify"))
}

func TestBusyWorkspaceIsWaitedFor(t *testing.T) {
	h := newHarness(t)
	tries := 0
	h.f.acquire = func(in activities.AcquireWorkspaceInput) (activities.AcquireWorkspaceOutput, error) {
		if tries++; tries <= 3 {
			return activities.AcquireWorkspaceOutput{}, busy()
		}
		return activities.AcquireWorkspaceOutput{Lease: signals.WorkspaceLease{Key: "a", PlanID: in.PlanID, RunID: in.RunID}}, nil
	}
	var clarifiedAt time.Time
	clarify := h.f.clarify
	h.f.clarify = func(in activities.ClarifyInput) (activities.ClarifyOutput, error) {
		clarifiedAt = h.env.Now()
		return clarify(in)
	}
	var pending signals.Pending
	var prog signals.Progress
	h.at(2*time.Second, func() {
		pending = query(h, signals.PendingQuery)
		prog = query(h, signals.ProgressQuery)
	})
	start := h.env.Now()
	req := autoReq()
	req.Workspace, req.OnBusy = "a", signals.OnBusyWait
	res := h.run(req)

	require.Equal(t, signals.StatusCompleted, res.Status, res.Error)
	assert.Equal(t, 4, h.f.count("AcquireWorkspace"))
	assert.Equal(t, signals.AwaitingWorkspace, pending.Awaiting)
	require.NotNil(t, pending.Workspace)
	assert.Equal(t, "a", pending.Workspace.Workspace)
	assert.Contains(t, pending.Workspace.HeldBy, "plan plan-A")
	assert.Equal(t, plan.PhaseAwaitingWorkspace, prog.Phase)
	// 1s, 2s, 4s of backoff before the fourth try.
	assert.GreaterOrEqual(t, clarifiedAt.Sub(start), 7*time.Second)
	require.Len(t, h.f.released, 1)
}

func TestUnknownStartFieldIsRefused(t *testing.T) {
	h := newHarness(t)
	h.registerRun()
	h.env.ExecuteWorkflow(signals.WorkflowType, json.RawMessage(`{"goal":"Add JWT authentication","worksapce":"a"}`))

	requireInvalidRequest(t, h, `unknown field "worksapce"`)
	assert.Zero(t, h.f.count("AcquireWorkspace"))
}

func TestContinuationCarriesTheLease(t *testing.T) {
	h := newHarness(t)
	h.env.SetCurrentHistoryLength(500)
	next := h.runToContinue(autoReq(), withHistoryLimit(100))

	require.NotNil(t, next.Checkpoint)
	require.NotNil(t, next.Checkpoint.Lease)
	assert.Equal(t, plan.DefaultWorkspace("default-test-workflow-id"), next.Checkpoint.Lease.Key)
	assert.Equal(t, next.Checkpoint.Lease.Key, next.Workspace, "the continuation works in the same folder")
	assert.Empty(t, h.f.released, "the lease goes on with the plan")

	h2 := newHarness(t).continued()
	res := h2.run(next)
	require.Equal(t, signals.StatusCompleted, res.Status, res.Error)
	assert.Zero(t, h2.f.count("AcquireWorkspace"), "not acquired twice")
	require.Len(t, h2.f.released, 1, "the last run releases it")
	assert.Equal(t, next.Checkpoint.Lease.Request(), h2.f.released[0].req)
}

// commandLog is the sequence of activities and external signals a run
// asked for, in the order its code asked for them: the order of their
// commands in the history, whatever order the test environment then runs
// their mocks in.
type commandLog struct {
	interceptor.WorkerInterceptorBase
	mu    sync.Mutex
	calls []string
	// batches are the event log's markers (SideEffects of an
	// EventBatch), as a follower reads them from the history.
	batches []signals.EventBatch
}

// watchCommands records h's run's activities ("activity Type"), external
// signals ("signal name") and event log markers as the workflow issues
// them.
func watchCommands(h *harness) *commandLog {
	l := &commandLog{}
	opts := harnessWorkerOptions()
	opts.Interceptors = []interceptor.WorkerInterceptor{l}
	h.env.SetWorkerOptions(opts)
	return l
}

func (l *commandLog) add(call string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.calls = append(l.calls, call)
}

// only returns the recorded calls that are among names, in order.
func (l *commandLog) only(names ...string) []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	var out []string
	for _, c := range l.calls {
		if slices.Contains(names, c) {
			out = append(out, c)
		}
	}
	return out
}

func (l *commandLog) InterceptWorkflow(_ workflow.Context, next interceptor.WorkflowInboundInterceptor) interceptor.WorkflowInboundInterceptor {
	return &commandInbound{WorkflowInboundInterceptorBase: interceptor.WorkflowInboundInterceptorBase{Next: next}, l: l}
}

type commandInbound struct {
	interceptor.WorkflowInboundInterceptorBase
	l *commandLog
}

func (i *commandInbound) Init(outbound interceptor.WorkflowOutboundInterceptor) error {
	return i.Next.Init(&commandOutbound{WorkflowOutboundInterceptorBase: interceptor.WorkflowOutboundInterceptorBase{Next: outbound}, l: i.l})
}

type commandOutbound struct {
	interceptor.WorkflowOutboundInterceptorBase
	l *commandLog
}

func (o *commandOutbound) ExecuteActivity(ctx workflow.Context, activityType string, args ...any) workflow.Future {
	o.l.add("activity " + activityType)
	return o.Next.ExecuteActivity(ctx, activityType, args...)
}

func (o *commandOutbound) SideEffect(ctx workflow.Context, f func(workflow.Context) any) converter.EncodedValue {
	return o.Next.SideEffect(ctx, func(ctx workflow.Context) any {
		v := f(ctx)
		if b, ok := v.(signals.EventBatch); ok {
			o.l.mu.Lock()
			o.l.batches = append(o.l.batches, b)
			o.l.mu.Unlock()
		}
		return v
	})
}

func (o *commandOutbound) SignalExternalWorkflow(ctx workflow.Context, workflowID, runID, signalName string, arg any) workflow.Future {
	o.l.add("signal " + signalName)
	return o.Next.SignalExternalWorkflow(ctx, workflowID, runID, signalName, arg)
}
