package planclient_test

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	enumspb "go.temporal.io/api/enums/v1"
	historypb "go.temporal.io/api/history/v1"
	"go.temporal.io/api/serviceerror"
	"go.temporal.io/sdk/converter"
	"go.temporal.io/sdk/worker"
	"go.temporal.io/sdk/workflow"

	"github.com/planmode/planmode/internal/devserver"
	"github.com/planmode/planmode/plan"
	"github.com/planmode/planmode/planclient"
	"github.com/planmode/planmode/signals"
	"github.com/planmode/planmode/testsuite"
)

// TestMain shares one dev server between the tests that need one.
func TestMain(m *testing.M) { testsuite.Main(m) }

// standIn is a tiny PlanMode stand-in: it implements just the handlers the
// client test needs, so that the client is proven over the wire without the
// real workflow. It "generates" options after a short timer, waits for a
// selection, and then holds the run open until it is cancelled.
type standIn struct {
	view signals.OptionsView
}

func standInWorkflow(ctx workflow.Context, req signals.StartRequest) (signals.Result, error) {
	s := &standIn{}
	if err := s.register(ctx); err != nil {
		return signals.Result{}, err
	}
	if err := workflow.Sleep(ctx, 300*time.Millisecond); err != nil {
		return signals.Result{Status: signals.StatusCancelled}, nil
	}
	for i := 1; i <= req.WithDefaults().OptionCount; i++ {
		id := fmt.Sprintf("r1-o%d", i)
		s.view.Options = append(s.view.Options, plan.Option{ID: id, Title: fmt.Sprintf("%s, way %d", req.Goal, i)})
	}
	s.view.Revision, s.view.RecommendedID = 1, "r1-o1"
	_ = workflow.Await(ctx, func() bool { return false }) // until cancelled
	return signals.Result{Status: signals.StatusCancelled, SelectedOptionID: s.view.SelectedID, Summary: "stopped"}, nil
}

func (s *standIn) register(ctx workflow.Context) error {
	return errors.Join(
		signals.AwaitOptions.SetUpdateHandler(ctx,
			func(ctx workflow.Context, _ signals.AwaitOptionsRequest) (signals.OptionsView, error) {
				err := workflow.Await(ctx, func() bool { return s.view.Revision > 0 })
				return s.view, err
			},
			func(workflow.Context, signals.AwaitOptionsRequest) error {
				if s.view.SelectedID != "" {
					return fmt.Errorf("%w: the run has passed selection", signals.ErrRejected)
				}
				return nil
			}),
		signals.SelectOption.SetUpdateHandler(ctx,
			func(_ workflow.Context, req signals.SelectOptionRequest) (signals.SelectOptionResponse, error) {
				s.view.SelectedID = s.find(req).ID
				return signals.SelectOptionResponse{Option: s.find(req)}, nil
			},
			func(_ workflow.Context, req signals.SelectOptionRequest) error {
				if s.view.Revision == 0 || s.view.SelectedID != "" || s.find(req).ID == "" {
					return fmt.Errorf("%w: no such option to select: %+v", signals.ErrRejected, req)
				}
				return nil
			}),
		signals.OptionsQuery.SetHandler(ctx, func() (signals.OptionsView, error) { return s.view, nil }),
	)
}

// find returns the option req names, or a zero option.
func (s *standIn) find(req signals.SelectOptionRequest) plan.Option {
	for i, o := range s.view.Options {
		if o.ID == req.OptionID || (req.OptionID == "" && req.Rank == i+1) {
			return o
		}
	}
	return plan.Option{}
}

// startStandIn runs a worker for the stand-in on a fresh task queue and
// returns a client starting plans there.
func startStandIn(t *testing.T) (*planclient.Client, *devserver.DevServer) {
	t.Helper()
	if testing.Short() {
		t.Skip("needs a Temporal dev server; skipped with -short")
	}
	srv := testsuite.StartDevServer(t)
	queue := testsuite.TaskQueue(t)
	w := worker.New(srv.Client, queue, worker.Options{})
	w.RegisterWorkflowWithOptions(standInWorkflow, workflow.RegisterOptions{Name: signals.WorkflowType})
	require.NoError(t, w.Start())
	t.Cleanup(w.Stop)
	return planclient.New(srv.Client, planclient.WithTaskQueue(queue)), srv
}

func TestClientUpdateWithStartOverTheWire(t *testing.T) {
	c, srv := startStandIn(t)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	id := "plan-uws-" + testsuite.TaskQueue(t)
	req := signals.StartRequest{Goal: "Add JWT authentication", OptionCount: 2}

	view, err := c.StartAndGetOptions(ctx, id, req)
	require.NoError(t, err)
	require.Equal(t, 1, view.Revision)
	require.Len(t, view.Options, 2)
	assert.Equal(t, "r1-o1", view.RecommendedID)

	again, err := c.StartAndGetOptions(ctx, id, req)
	require.NoError(t, err, "a second call attaches to the open run")
	assert.Equal(t, view, again)

	sel, err := c.Select(ctx, id, signals.SelectOptionRequest{Rank: 2})
	require.NoError(t, err)
	assert.Equal(t, "r1-o2", sel.Option.ID)

	_, err = c.Select(ctx, id, signals.SelectOptionRequest{OptionID: "nope"})
	assert.ErrorContains(t, err, "rejected")
	_, err = c.StartAndGetOptions(ctx, id, req)
	assert.ErrorContains(t, err, "the run has passed selection")

	opts, err := c.Options(ctx, id)
	require.NoError(t, err)
	assert.Equal(t, "r1-o2", opts.SelectedID)

	require.NoError(t, c.Cancel(ctx, id, signals.ControlRequest{By: "alice", Reason: "the goal changed"}))
	res, err := c.Result(ctx, id)
	require.NoError(t, err)
	assert.Equal(t, signals.StatusCancelled, res.Status)
	assert.Equal(t, "r1-o2", res.SelectedOptionID)

	// The history says who cancelled, and why.
	var asked *historypb.WorkflowExecutionCancelRequestedEventAttributes
	it := srv.Client.GetWorkflowHistory(ctx, id, "", false, enumspb.HISTORY_EVENT_FILTER_TYPE_ALL_EVENT)
	for it.HasNext() {
		ev, err := it.Next()
		require.NoError(t, err)
		if a := ev.GetWorkflowExecutionCancelRequestedEventAttributes(); a != nil {
			asked = a
		}
	}
	require.NotNil(t, asked, "the history records the cancel request")
	assert.Equal(t, "alice", asked.GetIdentity())
	assert.Equal(t, "the goal changed", asked.GetCause())
}

func TestClientStartShowsMetadataInTheUI(t *testing.T) {
	c, srv := startStandIn(t)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	req := signals.StartRequest{Goal: "Fix the flaky cart test", Constraints: []string{"no new dependencies"}}
	run, err := c.Start(ctx, "", req)
	require.NoError(t, err)
	t.Cleanup(func() { _ = c.Cancel(context.Background(), run.GetID()) })

	d, err := srv.Client.DescribeWorkflow(ctx, run.GetID(), run.GetRunID())
	require.NoError(t, err)
	md := d.RawResponse.GetExecutionConfig().GetUserMetadata()
	var summary, details string
	dc := converter.GetDefaultDataConverter()
	require.NoError(t, dc.FromPayload(md.GetSummary(), &summary))
	require.NoError(t, dc.FromPayload(md.GetDetails(), &details))
	assert.Equal(t, "Fix the flaky cart test", summary)
	assert.Equal(t, planclient.StaticDetails(req), details)
	assert.Contains(t, details, "- no new dependencies")

	_, err = c.Start(ctx, run.GetID(), req)
	var started *serviceerror.WorkflowExecutionAlreadyStarted
	assert.ErrorAs(t, err, &started, "a plain start refuses an open id")

	require.Eventually(t, func() bool {
		view, err := c.Options(ctx, run.GetID())
		return err == nil && view.Revision == 1 && len(view.Options) == signals.DefaultOptionCount
	}, 10*time.Second, 50*time.Millisecond, "the options query shows the options once generated")
}
