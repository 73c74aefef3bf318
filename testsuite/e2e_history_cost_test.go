package testsuite

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/api/workflowservice/v1"
	"google.golang.org/protobuf/proto"

	"github.com/planmode/planmode/plan"
	"github.com/planmode/planmode/planclient"
	"github.com/planmode/planmode/signals"
)

// historyCost is what a plan's chain of runs left in history.
type historyCost struct {
	bytes, events, runs, versionMarkers int
}

// perStep divides the cost by the plan's steps.
func (h historyCost) perStep(steps int) (bytes, events float64) {
	return float64(h.bytes) / float64(steps), float64(h.events) / float64(steps)
}

// costOf sums the history of every run of workflow id, once visibility
// lists want runs or more closed.
func costOf(ctx context.Context, t *testing.T, pw *planWorker, id string) historyCost {
	t.Helper()
	var runs []string
	require.Eventually(t, func() bool {
		resp, err := pw.srv.Client.ListWorkflow(ctx, &workflowservice.ListWorkflowExecutionsRequest{
			Query: fmt.Sprintf("WorkflowId = '%s' AND ExecutionStatus != 'Running'", id)})
		if err != nil {
			return false
		}
		runs = runs[:0]
		for _, e := range resp.GetExecutions() {
			runs = append(runs, e.GetExecution().GetRunId())
		}
		return len(runs) > 0
	}, loadedWait, 50*time.Millisecond)
	var c historyCost
	for _, run := range runs {
		c.runs++
		it := pw.srv.Client.GetWorkflowHistory(ctx, id, run, false, enumspb.HISTORY_EVENT_FILTER_TYPE_ALL_EVENT)
		for it.HasNext() {
			ev, err := it.Next()
			require.NoError(t, err)
			c.events++
			c.bytes += proto.Size(ev)
			if m := ev.GetMarkerRecordedEventAttributes(); m != nil && m.GetMarkerName() == "Version" {
				c.versionMarkers++
			}
		}
	}
	return c
}

// runLongPlan runs an external plan of n llm steps to its end and returns
// its history cost. The plan runs in complete mode, which reflects after
// every step: the most history a step of this kind writes.
func runLongPlan(t *testing.T, pw *planWorker, n int) historyCost {
	t.Helper()
	steps := make([]plan.Step, n)
	for i := range steps {
		steps[i] = plan.Step{Title: fmt.Sprintf("Write part %d of the notes", i+1), Action: plan.ActionLLM,
			Config: plan.StepConfig{LLM: &plan.LLMConfig{Prompt: "Write a short paragraph about the discount rule."}}}
	}
	ctx, cancel := testContext(t)
	defer cancel()
	id := fmt.Sprintf("long-%d-%s", n, pw.queue)
	pc := planclient.New(pw.srv.Client, planclient.WithTaskQueue(pw.queue))
	_, err := pc.Start(ctx, id, signals.StartRequest{Goal: "Write notes on the discount rule",
		Plan: &signals.ExternalPlan{Steps: steps}, Execution: signals.ExecutionPolicy{MaxSteps: n, Mode: signals.ExecComplete}})
	require.NoError(t, err)
	res, err := pc.Result(ctx, id)
	require.NoError(t, err)
	require.Equal(t, signals.StatusCompleted, res.Status, res.Error)
	require.Len(t, res.Plan.Steps, n)
	assert.Equal(t, n, res.Plan.Progress().Totals().Completed)
	return costOf(ctx, t, pw, id)
}

// TestHistoryGrowsLinearlyWithThePlan runs plans of 50 and 300 llm steps
// with the offline model and checks that a step costs the same history
// in both: bytes and events per step flat, and no version marker.
func TestHistoryGrowsLinearlyWithThePlan(t *testing.T) {
	pw := startPlanWorker(t)
	short, long := runLongPlan(t, pw, 50), runLongPlan(t, pw, 300)
	sb, se := short.perStep(50)
	lb, le := long.perStep(300)
	t.Logf("50 steps: %.0f B/step, %.1f events/step, %d run(s); 300 steps: %.0f B/step, %.1f events/step, %d run(s)",
		sb, se, short.runs, lb, le, long.runs)

	assert.LessOrEqual(t, lb, 1.1*sb, "bytes per step grow with the plan")
	// About 7 KB of activities and workflow tasks, and the event log's
	// markers (two a step).
	assert.LessOrEqual(t, lb, 9216.0, "a simple step costs at most 9 KB of history")
	assert.LessOrEqual(t, le, 13.0, "events per step")
	assert.Zero(t, long.versionMarkers, "the baseline records no version marker")
}

// TestThousandStepPlanCompletes runs a plan of plan.MaxPlanSteps llm
// steps to its end: its history continues as new on the way and no
// payload (the checkpoint, the Result) outgrows the server's limits.
func TestThousandStepPlanCompletes(t *testing.T) {
	if testing.Short() {
		t.Skip("a thousand steps take a minute")
	}
	pw := startPlanWorker(t)
	c := runLongPlan(t, pw, plan.MaxPlanSteps)
	b, e := c.perStep(plan.MaxPlanSteps)
	t.Logf("%d steps: %.0f B/step, %.1f events/step, %d runs", plan.MaxPlanSteps, b, e, c.runs)
	assert.Greater(t, c.runs, 1, "a plan this long continues as new")
}
