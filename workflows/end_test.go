package workflows

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/temporal"

	"github.com/planmode/planmode/activities"
	"github.com/planmode/planmode/plan"
	"github.com/planmode/planmode/signals"
)

// errRefused is how an LLM activity reports a model that refuses the
// request (a bad request): not worth retrying.
var errRefused = temporal.NewNonRetryableApplicationError("model refused the request", "BadRequest", nil)

// refusingModel makes every LLM activity fail as a refusing model does.
func refusingModel(h *harness) {
	h.f.clarify = func(activities.ClarifyInput) (activities.ClarifyOutput, error) {
		return activities.ClarifyOutput{}, errRefused
	}
	h.f.options = func(activities.OptionsInput) (activities.OptionsOutput, error) {
		return activities.OptionsOutput{}, errRefused
	}
	h.f.llmStep = func(activities.StepInput) (plan.StepResult, error) { return plan.StepResult{}, errRefused }
	h.f.agentTurn = func(activities.AgentTurnInput) (activities.AgentTurnOutput, error) {
		return activities.AgentTurnOutput{}, errRefused
	}
	h.f.reflect = func(activities.ReflectInput) (plan.Reflection, error) { return plan.Reflection{}, errRefused }
	h.f.summarize = func(activities.SummarizeInput) (activities.SummarizeOutput, error) {
		return activities.SummarizeOutput{}, errRefused
	}
}

// lastOf returns the last element of vs.
func lastOf[T any](t *testing.T, vs []T) T {
	t.Helper()
	require.NotEmpty(t, vs)
	return vs[len(vs)-1]
}

func TestRefusingModelEndsFailedWithTheResult(t *testing.T) {
	h := newHarness(t)
	refusingModel(h)
	log := watchAttributes(h)
	h.register()
	h.env.ExecuteWorkflow(PlanMode, autoReq())

	err := h.env.GetWorkflowError()
	var app *temporal.ApplicationError
	require.ErrorAs(t, err, &app, "Temporal records the plan Failed")
	assert.Equal(t, signals.ErrorTypePlanFailed, app.Type())
	assert.True(t, app.NonRetryable())
	var res signals.Result
	require.NoError(t, app.Details(&res), "the first detail is the Result")
	assert.Equal(t, signals.StatusFailed, res.Status)
	assert.Contains(t, res.Error, "model refused the request")
	assert.Equal(t, res.Error, app.Message())
	assert.Equal(t, "Run failed before a plan was selected: Add JWT authentication", res.Summary,
		"the summary stands in when the model refuses that too")
	got, ok := signals.ResultFromError(err)
	require.True(t, ok)
	assert.Equal(t, res, got)

	log.mu.Lock()
	defer log.mu.Unlock()
	assert.Equal(t, string(plan.PhaseFailed), lastOf(t, log.phases))
	assert.Equal(t, int64(0), lastOf(t, log.progress))
}

func TestFailedPlanShowsTheStepsActuallyDone(t *testing.T) {
	h := newHarness(t)
	log := watchAttributes(h)
	h.f.llmStep = func(in activities.StepInput) (plan.StepResult, error) {
		if in.Context.Step.ID == "s2" {
			return plan.StepResult{Error: "compile error"}, nil
		}
		return plan.StepResult{Success: true, Output: "done"}, nil
	}
	res := h.run(autoReq())

	require.Equal(t, signals.StatusFailed, res.Status)
	assert.Contains(t, res.Error, "s2: compile error")
	assert.Equal(t, map[string]plan.StepStatus{"s1": plan.StepCompleted, "s2": plan.StepFailed, "s3": plan.StepCancelled},
		statuses(res.Plan))
	assert.Equal(t, "summary: failed", res.Summary)
	log.mu.Lock()
	defer log.mu.Unlock()
	// s3 never ran and leaves the count: one of the two steps that ran
	// did its work.
	assert.Equal(t, int64(50), lastOf(t, log.progress), "one of two steps that ran did its work")
	assert.Equal(t, 50, query(h, signals.ProgressQuery).Percent, "the query agrees")
}

func TestTemporalCancellationEndsCanceledWithTheResult(t *testing.T) {
	h := newHarness(t)
	log := watchAttributes(h)
	h.at(stepTime+stepTime/2, func() { h.env.CancelWorkflow() })
	h.register()
	h.env.ExecuteWorkflow(PlanMode, autoReq())

	err := h.env.GetWorkflowError()
	var canceled *temporal.CanceledError
	require.ErrorAs(t, err, &canceled, "Temporal records the plan Canceled")
	var res signals.Result
	require.NoError(t, canceled.Details(&res), "the details are the Result")
	assert.Equal(t, signals.StatusCancelled, res.Status)
	assert.Equal(t, "summary: cancelled", res.Summary, "the partial summary is written")
	assert.Equal(t, map[string]plan.StepStatus{"s1": plan.StepCompleted, "s2": plan.StepCancelled, "s3": plan.StepCancelled},
		statuses(res.Plan))
	log.mu.Lock()
	defer log.mu.Unlock()
	assert.Equal(t, string(plan.PhaseCancelled), lastOf(t, log.phases))
	// s2 was cancelled while it ran and stays in the count, s3 never
	// started and leaves it.
	assert.Equal(t, int64(50), lastOf(t, log.progress), "a cancelled plan does not say 100")
}

func TestSelectionTimeoutThatCancelsEndsCanceled(t *testing.T) {
	h := newHarness(t)
	req := manualReq()
	req.Selection = signals.SelectionPolicy{Mode: signals.SelectManual, Timeout: plan.Duration(time.Hour), OnTimeout: signals.OnTimeoutCancel}
	h.register()
	h.env.ExecuteWorkflow(PlanMode, req)

	var canceled *temporal.CanceledError
	require.ErrorAs(t, h.env.GetWorkflowError(), &canceled)
	res, ok := signals.ResultFromError(h.env.GetWorkflowError())
	require.True(t, ok)
	assert.Equal(t, signals.StatusCancelled, res.Status)
	assert.Contains(t, res.Error, "no option selected within 1h0m0s")
}

func TestHistoryBudgetStopsALongAgentStep(t *testing.T) {
	h := newHarness(t)
	h.f.onePlan(agentStep("a1", 50), llmStep("s2", "a1"))
	h.f.agentTurn = func(in activities.AgentTurnInput) (activities.AgentTurnOutput, error) {
		return activities.AgentTurnOutput{ToolCalls: []activities.ToolCall{{ID: "c", Name: "read_file", Arguments: `{"path":"a.go"}`}}}, nil
	}
	h.env.SetCurrentHistoryLength(100)
	// Three turns run; then the history is past the budget.
	h.at(3*stepTime-stepTime/2, func() { h.env.SetCurrentHistoryLength(600) })
	h.registerRun(withHistoryBudget(500, 0))
	h.env.ExecuteWorkflow(signals.WorkflowType, autoReq())
	res := h.result()

	require.Equal(t, signals.StatusFailed, res.Status)
	assert.Contains(t, res.Error, "history budget exhausted: 600 events")
	assert.Equal(t, budgetHistory, res.BudgetExceeded)
	a1 := res.Plan.StepByID("a1")
	assert.Equal(t, plan.StepFailed, a1.Status)
	assert.Contains(t, a1.Result.Error, "history budget exhausted")
	assert.Equal(t, 3, h.f.count("AgentTurn"), "no turn starts past the budget")
	assert.Equal(t, 2, h.f.count("RunTool"), "the third turn's tool call is past the budget")
	assert.Equal(t, plan.StepCancelled, res.Plan.StepByID("s2").Status)
	assert.Zero(t, h.f.count("ExecuteLLMStep"))
	assert.Equal(t, 1, h.f.count("Summarize"), "the summary is still written")
}

func TestHistoryBudgetStopsRetriesBySize(t *testing.T) {
	h := newHarness(t)
	s := llmStep("s1")
	s.MaxRetries, s.RetryDelay = 10, plan.Duration(time.Minute)
	h.f.onePlan(s)
	h.f.llmStep = func(activities.StepInput) (plan.StepResult, error) { return plan.StepResult{Error: "flaky"}, nil }
	h.at(2*stepTime+stepTime/2, func() { h.env.SetCurrentHistorySize(2 << 20) })
	h.registerRun(withHistoryBudget(0, 1<<20))
	h.env.ExecuteWorkflow(signals.WorkflowType, autoReq())
	res := h.result()

	require.Equal(t, signals.StatusFailed, res.Status)
	assert.True(t, strings.HasPrefix(res.Error, "history budget exhausted"), res.Error)
	assert.Less(t, h.f.count("ExecuteLLMStep"), 11, "the retries stop at the budget")
}
