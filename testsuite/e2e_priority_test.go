package testsuite

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	enumspb "go.temporal.io/api/enums/v1"

	"github.com/planmode/planmode/plan"
	"github.com/planmode/planmode/planclient"
	"github.com/planmode/planmode/signals"
)

// TestTasksCarryThePlansPriorityAndTenant: a high plan of tenant team-a
// schedules its own activities (the lease, which takes the snapshot too,
// and the summary) at priority key 2 and its steps' work and reflections
// one key below, all with the tenant as fairness key, as the server
// records them.
func TestTasksCarryThePlansPriorityAndTenant(t *testing.T) {
	t.Parallel()
	pw := startPlanWorker(t)
	ctx, cancel := testContext(t)
	defer cancel()
	pc := planclient.New(pw.srv.Client, planclient.WithTaskQueue(pw.queue))
	id := "plan-priority-" + pw.queue
	steps := []plan.Step{
		{ID: "a", Title: "A", Action: plan.ActionLLM, Config: plan.StepConfig{LLM: &plan.LLMConfig{Prompt: "say a"}}},
		{ID: "b", Title: "B", Action: plan.ActionLLM, DependsOn: []string{"a"}, Config: plan.StepConfig{LLM: &plan.LLMConfig{Prompt: "say b"}}},
	}
	_, err := pc.Start(ctx, id, signals.StartRequest{Goal: "Two steps, high priority", Workspace: pw.workspace,
		Priority: plan.PriorityHigh, Tenant: "team-a", Plan: &signals.ExternalPlan{Steps: steps}})
	require.NoError(t, err)
	res, err := pc.Result(ctx, id)
	require.NoError(t, err)
	require.Equal(t, signals.StatusCompleted, res.Status, res.Error)

	desc, err := pw.srv.Client.DescribeWorkflow(ctx, id, "")
	require.NoError(t, err)
	started := desc.RawResponse.GetWorkflowExecutionInfo().GetPriority()
	assert.Equal(t, int32(2), started.GetPriorityKey(), "the client started the plan at its priority")
	assert.Equal(t, "team-a", started.GetFairnessKey())

	keys := map[string][]int{}
	it := pw.srv.Client.GetWorkflowHistory(ctx, id, "", false, enumspb.HISTORY_EVENT_FILTER_TYPE_ALL_EVENT)
	for it.HasNext() {
		ev, err := it.Next()
		require.NoError(t, err)
		a := ev.GetActivityTaskScheduledEventAttributes()
		if a == nil {
			continue
		}
		name := a.GetActivityType().GetName()
		assert.Equal(t, "team-a", a.GetPriority().GetFairnessKey(), "fairness key of %s", name)
		keys[name] = append(keys[name], int(a.GetPriority().GetPriorityKey()))
	}
	// A plan handed in gets its snapshot with its lease.
	for _, own := range []string{"AcquireWorkspace", "Summarize"} {
		require.NotEmpty(t, keys[own], "%s ran", own)
		for _, k := range keys[own] {
			assert.Equal(t, 2, k, "%s runs at the plan's own key", own)
		}
	}
	for _, step := range []string{"ExecuteLLMStep", "Reflect"} {
		require.NotEmpty(t, keys[step], "%s ran", step)
		for _, k := range keys[step] {
			assert.Equal(t, 3, k, "%s runs one key below the plan", step)
		}
	}
}
