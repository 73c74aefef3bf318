package testsuite

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.temporal.io/api/serviceerror"
	"go.temporal.io/sdk/temporal"

	"github.com/planmode/planmode/plan"
	"github.com/planmode/planmode/planclient"
	"github.com/planmode/planmode/signals"
)

// queryState is what the queries of a run answer, minus what moves with
// the clock (elapsed, remaining) and the list of refused signals.
type queryState struct {
	Options  signals.OptionsView
	Plan     signals.PlanView
	Progress signals.Progress
	Pending  signals.Pending
}

// readState runs every query of run id.
func readState(ctx context.Context, t *testing.T, pc *planclient.Client, id string) queryState {
	t.Helper()
	var s queryState
	var err error
	s.Options, err = pc.Options(ctx, id)
	require.NoError(t, err)
	s.Plan, err = pc.Plan(ctx, id)
	require.NoError(t, err)
	s.Progress, err = pc.Progress(ctx, id)
	require.NoError(t, err)
	s.Pending, err = pc.Pending(ctx, id)
	require.NoError(t, err)
	// Clock-derived figures move on their own while the run waits.
	s.Progress.Elapsed, s.Progress.EstimatedRemaining, s.Progress.PausedFor = 0, 0, 0
	s.Pending.Rejected = nil
	return s
}

// refusal is an input the run must refuse.
type refusal struct {
	name string
	send func(context.Context) error
	want string
}

// requireRefused sends every input, requires the workflow's rejection for
// each (an application error whose message starts with "rejected") and
// then that the queries answer as before.
func requireRefused(ctx context.Context, t *testing.T, pc *planclient.Client, id string, inputs []refusal) {
	t.Helper()
	before := readState(ctx, t, pc, id)
	for _, in := range inputs {
		t.Run(in.name, func(t *testing.T) {
			err := in.send(ctx)
			require.Error(t, err)
			var app *temporal.ApplicationError
			require.True(t, errors.As(err, &app), "the validator's refusal reaches the caller: %v", err)
			assert.True(t, strings.HasPrefix(app.Message(), signals.ErrRejected.Error()), app.Message())
			assert.Contains(t, app.Message(), in.want)
		})
	}
	assert.Equal(t, before, readState(ctx, t, pc, id), "refused inputs change nothing")
}

// TestWireRefusesBadInputs sends invalid updates and malformed signals
// before selection, during execution and after the end, and checks that
// each is refused, that the queries answer as before, and that the run
// still completes as chosen.
func TestWireRefusesBadInputs(t *testing.T) {
	t.Parallel()
	pw := startPlanWorker(t)
	ctx, cancel := testContext(t)
	defer cancel()
	pc := planclient.New(pw.srv.Client, planclient.WithTaskQueue(pw.queue))
	id := "plan-wire-" + pw.queue
	options, err := pc.StartAndGetOptions(ctx, id, signals.StartRequest{Goal: "Add a percentage discount to the cart total", Workspace: pw.workspace})
	require.NoError(t, err)

	requireRefused(ctx, t, pc, id, refusalsBeforeSelection(pc, id))
	requireSignalsRefused(ctx, t, pc, id)

	_, err = pc.Pause(ctx, id, signals.ControlRequest{Reason: "hold before the first step"})
	require.NoError(t, err)
	selected, err := pc.Select(ctx, id, signals.SelectOptionRequest{Rank: 1})
	require.NoError(t, err)
	require.Equal(t, options.RecommendedID, selected.Option.ID)
	require.Eventually(t, func() bool {
		v, err := pc.Plan(ctx, id)
		return err == nil && v.Plan != nil && v.Plan.Status == plan.PlanPaused
	}, loadedWait, 20*time.Millisecond, "the run holds before its first step")
	progress, err := pc.Progress(ctx, id)
	require.NoError(t, err)
	require.Equal(t, plan.PhaseExecuting, progress.Phase)

	requireRefused(ctx, t, pc, id, refusalsDuringExecution(pc, id))

	_, err = pc.Resume(ctx, id, signals.ControlRequest{})
	require.NoError(t, err)
	res, err := pc.Result(ctx, id)
	require.NoError(t, err)
	assertCompleted(t, res, selected.Option.ID)
	assert.Len(t, res.Plan.Steps, len(selected.Option.Plan.Steps), "the refused edit removed nothing")

	_, err = pc.Select(ctx, id, signals.SelectOptionRequest{Rank: 2})
	var gone *serviceerror.NotFound
	require.ErrorAs(t, err, &gone, "a finished plan takes no selection")
	assert.Contains(t, err.Error(), "already completed")
	after, err := pc.Options(ctx, id)
	require.NoError(t, err)
	assert.Equal(t, selected.Option.ID, after.SelectedID)
}

// requireSignalsRefused sends select-option signals whose payloads do not
// decode and checks that the pending query lists each as refused while
// the run still waits for its selection.
func requireSignalsRefused(ctx context.Context, t *testing.T, pc *planclient.Client, id string) {
	t.Helper()
	before := readState(ctx, t, pc, id)
	bad := []map[string]any{
		{"optionId": 5},
		{"option": "r1-o1"},
	}
	for _, payload := range bad {
		require.NoError(t, pc.Temporal().SignalWorkflow(ctx, id, "", signals.SelectOption.Name, payload))
	}
	var pending signals.Pending
	require.Eventually(t, func() bool {
		var err error
		pending, err = pc.Pending(ctx, id)
		return err == nil && len(pending.Rejected) == len(bad)
	}, loadedWait, 20*time.Millisecond, "the pending query lists the refused signals")
	for i, want := range []string{"cannot unmarshal number", `unknown field "option"`} {
		assert.Equal(t, signals.SelectOption.Name, pending.Rejected[i].Name)
		assert.Contains(t, pending.Rejected[i].Reason, want)
		assert.NotEmpty(t, pending.Rejected[i].Payload)
	}
	assert.Equal(t, before, readState(ctx, t, pc, id), "refused signals change nothing")
}

// Inputs refused whatever the phase.
var (
	removeUnknown = signals.EditPlanRequest{Edits: []plan.Edit{{Op: plan.OpRemove, StepID: "no-such-step"}}, Reason: "tidy"}
	unknownSkip   = signals.ConfirmSkipRequest{RequestID: "no-such-request", Approve: true}
)

// refusalsBeforeSelection are the inputs run id refuses while it waits for
// its selection.
func refusalsBeforeSelection(pc *planclient.Client, id string) []refusal {
	return []refusal{
		{name: "unknown option", want: "no-such-option", send: func(ctx context.Context) error {
			_, err := pc.Select(ctx, id, signals.SelectOptionRequest{OptionID: "no-such-option"})
			return err
		}},
		{name: "rank 99", want: "rank 99", send: func(ctx context.Context) error {
			_, err := pc.Select(ctx, id, signals.SelectOptionRequest{Rank: 99})
			return err
		}},
		{name: "unknown skip request", want: "no-such-request", send: func(ctx context.Context) error {
			_, err := pc.ConfirmSkip(ctx, id, unknownSkip)
			return err
		}},
		{name: "edit before selection", want: "no plan selected", send: func(ctx context.Context) error {
			_, err := pc.Edit(ctx, id, removeUnknown)
			return err
		}},
		{name: "rollback before execution", want: "once execution has started", send: func(ctx context.Context) error {
			_, err := pc.Rollback(ctx, id, "")
			return err
		}},
	}
}

// refusalsDuringExecution are the inputs run id refuses once it executes
// (held paused before its first step).
func refusalsDuringExecution(pc *planclient.Client, id string) []refusal {
	return []refusal{
		{name: "select during execution", want: "not awaiting a selection", send: func(ctx context.Context) error {
			_, err := pc.Select(ctx, id, signals.SelectOptionRequest{Rank: 2})
			return err
		}},
		{name: "remove an unknown step", want: "no-such-step", send: func(ctx context.Context) error {
			_, err := pc.Edit(ctx, id, removeUnknown)
			return err
		}},
		{name: "unknown skip request while executing", want: "no-such-request", send: func(ctx context.Context) error {
			_, err := pc.ConfirmSkip(ctx, id, unknownSkip)
			return err
		}},
		{name: "pause twice", want: "already paused", send: func(ctx context.Context) error {
			_, err := pc.Pause(ctx, id, signals.ControlRequest{})
			return err
		}},
	}
}
