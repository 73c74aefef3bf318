package workflows

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/temporal"

	"github.com/planmode/planmode/plan"
	"github.com/planmode/planmode/signals"
)

// externalReq is a manual-selection request that carries its own plan:
// s1, then a step without an id that depends on it, then a tool step.
func externalReq() signals.StartRequest {
	req := manualReq()
	noID := llmStep("", "s1")
	tool := plan.Step{
		ID: "vet", Title: "Vet", Action: plan.ActionTool, DependsOn: []string{"s1"},
		Config: plan.StepConfig{Tool: &plan.ToolConfig{Name: plan.ToolListFiles}},
	}
	req.Plan = &signals.ExternalPlan{Title: "Handed in", Steps: []plan.Step{llmStep("s1"), noID, tool}}
	req.Workspace = "/srv/ws"
	return req
}

func TestExternalPlanWritesItsSearchAttributesOnceToStart(t *testing.T) {
	h := newHarness(t)
	log := watchAttributes(h)
	res := h.run(externalReq())

	require.Equal(t, signals.StatusCompleted, res.Status, res.Error)
	log.mu.Lock()
	defer log.mu.Unlock()
	assert.Equal(t, []string{"executing", "summarizing", "completed"}, log.phases,
		"no upsert for a planning phase that lasts no time")
	assert.Equal(t, []string{"Add JWT authentication"}, log.goals, "the goal with the first upsert")
}

func TestExternalPlanRunsAtOnceWithoutClarifyOrOptions(t *testing.T) {
	h := newHarness(t)
	res := h.run(externalReq())

	require.Equal(t, signals.StatusCompleted, res.Status, res.Error)
	assert.Zero(t, h.f.count("Clarify"), "a plan handed in skips clarification")
	assert.Zero(t, h.f.count("GenerateOptions"), "a plan handed in skips option generation")
	assert.Equal(t, 1, h.f.count("LeaseSnapshot"), "the workspace is snapshotted as for a selected option, with its lease")
	assert.Zero(t, h.f.count("SnapshotWorkspace"), "no round trip of its own")
	require.Len(t, h.f.acquireIn, 1)
	assert.Equal(t, "default-test-workflow-id-external", h.f.acquireIn[0].Snapshot.PlanID)
	assert.Equal(t, signals.ExternalOptionID, res.SelectedOptionID)
	require.NotNil(t, res.Plan)
	assert.Equal(t, "Handed in", res.Plan.Title)
	var ids []string
	for _, s := range res.Plan.Steps {
		ids = append(ids, s.ID)
		assert.Equal(t, plan.StepCompleted, s.Status, "step %s", s.ID)
	}
	assert.Equal(t, []string{"s1", "s2", "vet"}, ids, "the step without an id got the next free one")
	assert.Equal(t, []string{"s1", "s2"}, h.f.stepIDs())
	assert.Equal(t, 1, h.f.count("RunTool"))

	opts := query(h, signals.OptionsQuery)
	require.Len(t, opts.Options, 1, "the options view shows the plan as the one option")
	assert.Equal(t, signals.ExternalOptionID, opts.SelectedID)
	assert.Equal(t, signals.ExternalOptionID, opts.RecommendedID)
	assert.Equal(t, 1, opts.Options[0].Rank)
}

func TestExternalPlanInvalidFailsAtStart(t *testing.T) {
	tests := []struct {
		name string
		edit func(*signals.StartRequest)
		want string
	}{
		{"unknown dependency", func(r *signals.StartRequest) { r.Plan.Steps[0].DependsOn = []string{"nope"} }, "nope"},
		{"unknown tool", func(r *signals.StartRequest) { r.Plan.Steps[2].Config.Tool.Name = "launch_rockets" }, "launch_rockets"},
		{"over maxSteps", func(r *signals.StartRequest) { r.Execution.MaxSteps = 2 }, "more than the maximum of 2"},
		{"empty", func(r *signals.StartRequest) { r.Plan.Steps = nil }, "at least one step"},
		{"with a template", func(r *signals.StartRequest) { r.Template = "bugfix" }, "exclude each other"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := newHarness(t)
			req := externalReq()
			tt.edit(&req)
			h.register()
			h.env.ExecuteWorkflow(PlanMode, req)
			require.True(t, h.env.IsWorkflowCompleted())
			var app *temporal.ApplicationError
			require.ErrorAs(t, h.env.GetWorkflowError(), &app)
			assert.Equal(t, signals.ErrorTypeInvalidRequest, app.Type())
			assert.Contains(t, app.Message(), tt.want)
			assert.Zero(t, h.f.count("ExecuteLLMStep"), "nothing of an invalid plan runs")
		})
	}
}
