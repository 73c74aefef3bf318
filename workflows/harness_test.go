package workflows

import (
	"context"
	"encoding/json"
	"log/slog"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/mock"
	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/converter"
	"go.temporal.io/sdk/log"
	"go.temporal.io/sdk/temporal"
	sdktest "go.temporal.io/sdk/testsuite"
	"go.temporal.io/sdk/worker"
	"go.temporal.io/sdk/workflow"

	"github.com/planmode/planmode/activities"
	"github.com/planmode/planmode/plan"
	"github.com/planmode/planmode/signals"
)

// harness runs PlanMode in the SDK's test environment with the fakes.
type harness struct {
	t   *testing.T
	env *sdktest.TestWorkflowEnvironment
	f   *fakes
	// stepDelay is how long llm steps and agent turns take on the
	// workflow clock.
	stepDelay time.Duration
}

func newHarness(t *testing.T) *harness {
	t.Helper()
	var suite sdktest.WorkflowTestSuite
	suite.SetLogger(log.NewStructuredLogger(slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelError}))))
	env := suite.NewTestWorkflowEnvironment()
	env.SetTestTimeout(20 * time.Second)
	env.SetWorkerOptions(harnessWorkerOptions())
	// The webhook child workflow, registered as the worker does.
	env.RegisterWorkflowWithOptions(PlanNotify, workflow.RegisterOptions{Name: signals.NotifyWorkflowType})
	return &harness{t: t, env: env, f: newFakes(), stepDelay: stepTime}
}

// harnessWorkerOptions are the test environment's worker options: a
// workflow task may take a busy machine's time before it counts as a
// deadlock (the SDK's default, one second, is a wall-clock bound a loaded
// 2-core machine misses on a long plan's first task).
func harnessWorkerOptions() worker.Options {
	return worker.Options{DeadlockDetectionTimeout: 30 * time.Second}
}

// register wires the fakes into the environment's activity mocks.
func (h *harness) register() {
	f, env := h.f, h.env
	env.OnActivity(a.Clarify, mock.Anything, mock.Anything).Return(func(_ context.Context, in activities.ClarifyInput) (activities.ClarifyOutput, error) {
		record(f, "Clarify", &f.clarifyIn, in)
		return f.clarify(in)
	})
	env.OnActivity(a.GenerateOptions, mock.Anything, mock.Anything).Return(func(_ context.Context, in activities.OptionsInput) (activities.OptionsOutput, error) {
		record(f, "GenerateOptions", &f.optionsIn, in)
		return f.options(in)
	})
	env.OnActivity(a.ExecuteLLMStep, mock.Anything, mock.Anything).After(h.stepDelay).Return(func(_ context.Context, in activities.StepInput) (plan.StepResult, error) {
		record(f, "ExecuteLLMStep", &f.stepIn, in)
		return f.llmStep(in)
	})
	env.OnActivity(a.AgentTurn, mock.Anything, mock.Anything).After(h.stepDelay).Return(func(_ context.Context, in activities.AgentTurnInput) (activities.AgentTurnOutput, error) {
		record(f, "AgentTurn", &f.agentIn, in)
		return f.agentTurn(in)
	})
	env.OnActivity(a.Reflect, mock.Anything, mock.Anything).Return(func(_ context.Context, in activities.ReflectInput) (plan.Reflection, error) {
		record(f, "Reflect", &f.reflectIn, in)
		return f.reflect(in)
	})
	env.OnActivity(a.Summarize, mock.Anything, mock.Anything).Return(func(_ context.Context, in activities.SummarizeInput) (activities.SummarizeOutput, error) {
		record(f, "Summarize", &f.summarizeIn, in)
		return f.summarize(in)
	})
	h.registerTools()
}

// registerTools wires the tool-side fakes and the webhook.
func (h *harness) registerTools() {
	f, env := h.f, h.env
	env.OnActivity(a.RunTool, mock.Anything, mock.Anything).Return(func(_ context.Context, in activities.ToolInput) (activities.ToolOutput, error) {
		record(f, "RunTool", &f.toolIn, in)
		return f.runTool(in)
	})
	env.OnActivity(a.SnapshotWorkspace, mock.Anything, mock.Anything).Return(func(_ context.Context, in activities.SnapshotInput) (activities.SnapshotOutput, error) {
		f.mu.Lock()
		f.calls["SnapshotWorkspace"]++
		f.mu.Unlock()
		return f.snapshot(in)
	})
	env.OnActivity(a.RestoreWorkspace, mock.Anything, mock.Anything).Return(func(_ context.Context, in activities.RestoreInput) (activities.RestoreOutput, error) {
		f.mu.Lock()
		f.calls["RestoreWorkspace"]++
		f.mu.Unlock()
		return f.restore(in)
	})
	env.OnActivity(a.Notify, mock.Anything, mock.Anything).Return(func(_ context.Context, in activities.NotifyInput) (activities.NotifyOutput, error) {
		record(f, "Notify", &f.notifyIn, in)
		return f.notify(in)
	})
	env.OnActivity(a.AcquireWorkspace, mock.Anything, mock.Anything).Return(func(_ context.Context, in activities.AcquireWorkspaceInput) (activities.AcquireWorkspaceOutput, error) {
		record(f, "AcquireWorkspace", &f.acquireIn, in)
		out, err := f.acquire(in)
		if err != nil || in.Snapshot == nil {
			return out, err
		}
		// As the activity does: the snapshot asked for, once leased.
		f.mu.Lock()
		f.calls["LeaseSnapshot"]++
		f.mu.Unlock()
		snap, err := f.snapshot(*in.Snapshot)
		out.Snapshot = &snap
		return out, err
	})
	env.OnActivity(a.GoalAttr, mock.Anything, mock.Anything).Return(func(_ context.Context, in activities.GoalAttrInput) (activities.GoalAttrOutput, error) {
		record(f, "GoalAttr", &f.goalAttrIn, in)
		return f.goalAttr(in)
	})
	env.OnActivity(a.PlanPriority, mock.Anything, mock.Anything).Return(func(_ context.Context, in activities.PlanPriorityInput) error {
		record(f, "PlanPriority", &f.priorityIn, in)
		return nil
	})
	env.OnActivity(a.Receiver, mock.Anything).Return(func(context.Context) (activities.ReceiverOutput, error) {
		f.mu.Lock()
		f.calls["Receiver"]++
		fn := f.receiver
		f.mu.Unlock()
		return fn()
	})
	env.OnActivity(a.RecordTools, mock.Anything).Return(func(context.Context) (signals.RecordedTools, error) {
		f.mu.Lock()
		f.calls["RecordTools"]++
		fn := f.tools
		f.mu.Unlock()
		return fn()
	})
	env.OnActivity(a.CallMCPTool, mock.Anything, mock.Anything).Return(func(_ context.Context, in activities.MCPCallInput) (activities.MCPCallOutput, error) {
		record(f, "CallMCPTool", &f.mcpIn, in)
		return f.mcpCall(in)
	})
	env.OnSignalExternalWorkflow(mock.Anything, mock.Anything, mock.Anything, signals.ReleaseWorkspace.Name, mock.Anything).Return(
		func(_, id, _, _ string, arg any) error {
			var req signals.WorkspaceLeaseRequest
			convert(h.t, arg, &req)
			f.mu.Lock()
			defer f.mu.Unlock()
			f.released = append(f.released, release{registry: id, req: req})
			return nil
		})
}

// registerRun registers PlanMode with run settings (lower thresholds) and
// the fakes; run the workflow by its type name.
func (h *harness) registerRun(opts ...runSetting) {
	h.env.RegisterWorkflowWithOptions(func(ctx workflow.Context, req signals.StartRequest) (signals.Result, error) {
		return planMode(ctx, req, opts...)
	}, workflow.RegisterOptions{Name: signals.WorkflowType})
	h.register()
}

// autoReq is a request that selects the recommended option at once. It
// runs one step at a time, so tests can name the order steps ran in; tests
// of parallel steps set their own parallelism.
func autoReq() signals.StartRequest {
	req := manualReq()
	req.Selection = signals.SelectionPolicy{Mode: signals.SelectAuto}
	return req
}

// manualReq is a request that waits for a selection, one step at a time.
func manualReq() signals.StartRequest {
	return signals.StartRequest{Goal: "Add JWT authentication", Execution: signals.ExecutionPolicy{Parallelism: 1}}
}

// run executes PlanMode with req and returns its Result, and checks that
// Temporal's end matches it: a completed or answered run completes with
// it, a failed one fails with a PlanFailed error carrying it, a cancelled
// one is cancelled with it.
func (h *harness) run(req signals.StartRequest) signals.Result {
	h.t.Helper()
	h.register()
	h.env.ExecuteWorkflow(PlanMode, req)
	return h.result()
}

// result is the Result of the finished workflow, checked as run says.
func (h *harness) result() signals.Result {
	h.t.Helper()
	require.True(h.t, h.env.IsWorkflowCompleted(), "workflow did not complete")
	err := h.env.GetWorkflowError()
	if err == nil {
		var res signals.Result
		require.NoError(h.t, h.env.GetWorkflowResult(&res))
		require.Contains(h.t, []signals.Status{signals.StatusCompleted, signals.StatusAnswered}, res.Status,
			"a run that completes has completed: %s", res.Error)
		return res
	}
	res, ok := signals.ResultFromError(err)
	require.True(h.t, ok, "the workflow ended without a Result: %v", err)
	var app *temporal.ApplicationError
	var canceled *temporal.CanceledError
	switch res.Status {
	case signals.StatusFailed:
		require.ErrorAs(h.t, err, &app, "a failed run fails")
		require.Equal(h.t, signals.ErrorTypePlanFailed, app.Type())
		require.True(h.t, app.NonRetryable())
		require.Equal(h.t, res.Error, app.Message())
	case signals.StatusCancelled:
		require.ErrorAs(h.t, err, &canceled, "a cancelled run is cancelled")
	default:
		h.t.Fatalf("a run that ended with an error has status %q", res.Status)
	}
	return res
}

// at schedules fn at workflow time d.
func (h *harness) at(d time.Duration, fn func()) {
	h.env.RegisterDelayedCallback(fn, d)
}

// query runs a typed query.
func query[Resp any](h *harness, q signals.Query[Resp]) Resp {
	h.t.Helper()
	v, err := h.env.QueryWorkflow(q.Name)
	require.NoError(h.t, err)
	var out Resp
	require.NoError(h.t, v.Get(&out))
	return out
}

// outcome is what an update came to.
type outcome[Resp any] struct {
	done     bool
	rejected error
	err      error
	value    Resp
}

// update sends an update of h's name and captures its outcome; read it
// once the workflow is done (or later in a callback).
func update[Req, Resp any](hs *harness, h signals.Handler[Req, Resp], req Req) *outcome[Resp] {
	return sendUpdate[Resp](hs, h.Name, req)
}

// rollbackUpdate sends the rollback update.
func rollbackUpdate(hs *harness) *outcome[signals.RollbackResponse] {
	return sendUpdate[signals.RollbackResponse](hs, signals.Rollback.Name, signals.RollbackRequest{})
}

func sendUpdate[Resp any](hs *harness, name string, req any) *outcome[Resp] {
	out := &outcome[Resp]{}
	hs.env.UpdateWorkflow(name, "", &sdktest.TestUpdateCallback{
		OnReject: func(err error) { out.done, out.rejected = true, err },
		OnComplete: func(v any, err error) {
			out.done, out.err = true, err
			if err == nil {
				convert(hs.t, v, &out.value)
			}
		},
	}, req)
	return out
}

// convert copies v into out through JSON, whatever form the environment
// hands the update's answer in.
func convert(t *testing.T, v any, out any) {
	t.Helper()
	if ev, ok := v.(converter.EncodedValue); ok {
		require.NoError(t, ev.Get(out))
		return
	}
	b, err := json.Marshal(v)
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(b, out))
}

// signal sends a signal of h's name.
func signal[Req, Resp any](hs *harness, h signals.Handler[Req, Resp], req any) {
	hs.env.SignalWorkflow(h.Name, req)
}

// requireRejected asserts the update was refused with a message that holds
// want.
func requireRejected[Resp any](t *testing.T, o *outcome[Resp], want string) {
	t.Helper()
	require.True(t, o.done, "update got no answer")
	require.Error(t, o.rejected, "update was not rejected")
	require.Contains(t, o.rejected.Error(), want)
}

// requireAccepted asserts the update completed without error.
func requireAccepted[Resp any](t *testing.T, o *outcome[Resp]) Resp {
	t.Helper()
	require.True(t, o.done, "update got no answer")
	require.NoError(t, o.rejected)
	require.NoError(t, o.err)
	return o.value
}

// statuses maps step ids to their statuses.
func statuses(p *plan.Plan) map[string]plan.StepStatus {
	out := map[string]plan.StepStatus{}
	for _, s := range p.Steps {
		out[s.ID] = s.Status
	}
	return out
}

// rejectedNames lists the names of the pending query's rejected inputs.
func rejectedNames(p signals.Pending) []string {
	var out []string
	for _, r := range p.Rejected {
		out = append(out, r.Name)
	}
	return out
}

// hasRejection reports whether a rejection of name mentions want.
func hasRejection(p signals.Pending, name, want string) bool {
	for _, r := range p.Rejected {
		if r.Name == name && strings.Contains(r.Reason, want) {
			return true
		}
	}
	return false
}

// selectAt selects the rank-1 option by signal at workflow time d.
func (h *harness) selectAt(d time.Duration) {
	h.at(d, func() { signal(h, signals.SelectOption, signals.SelectOptionRequest{Rank: 1}) })
}
