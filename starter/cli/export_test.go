package cli

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/planmode/planmode/plan"
)

// ranPlan is a plan as the plan query shows it after a run: statuses,
// results and times filled in.
func ranPlan() plan.Plan {
	at := time.Date(2025, 1, 2, 3, 4, 5, 0, time.UTC)
	return plan.Plan{ID: "plan-1-r1-o1", Title: "Fix the cart", Version: 3, Status: plan.PlanCompleted, Steps: []plan.Step{
		{ID: "s1", Number: 1, Title: "Read", Action: plan.ActionTool, Status: plan.StepCompleted,
			Config:    plan.StepConfig{Tool: &plan.ToolConfig{Name: plan.ToolReadFile, Params: map[string]any{"path": "cart.go"}}},
			Result:    &plan.StepResult{Success: true, Output: "package cart"},
			StartedAt: &at, EndedAt: &at, Estimated: plan.Duration(time.Minute), MaxRetries: 2},
		{ID: "s2", Number: 2, Title: "Fix", Action: plan.ActionAgent, DependsOn: []string{"s1"}, Status: plan.StepSkipped,
			Note: "skipped", Config: plan.StepConfig{Agent: &plan.AgentConfig{Prompt: "fix it", Tools: []string{plan.ToolWriteFile}}},
			SkipCondition: `s1.failed`},
	}}
}

// steps is what an export keeps of p's steps: everything but what a run
// fills in.
func planSteps(p plan.Plan) []plan.Step {
	out := make([]plan.Step, len(p.Steps))
	for i, s := range p.Steps {
		s.Number, s.Status, s.Result, s.StartedAt, s.EndedAt, s.Note = 0, "", nil, nil, nil, ""
		out[i] = s
	}
	return out
}

func TestExportRoundTripsThroughStartPlan(t *testing.T) {
	p := ranPlan()
	doc, err := exportDoc(p)
	require.NoError(t, err)
	for _, format := range []string{"yaml", "json"} {
		t.Run(format, func(t *testing.T) {
			var buf bytes.Buffer
			if format == "yaml" {
				require.NoError(t, writeYAML(&buf, doc))
				assert.NotContains(t, buf.String(), "status:", "an export leaves out what a run fills in")
			} else {
				require.NoError(t, json.NewEncoder(&buf).Encode(doc))
			}
			file := filepath.Join(t.TempDir(), "plan."+format)
			require.NoError(t, os.WriteFile(file, buf.Bytes(), 0o600))

			f := parseStart(t, "--plan", file)
			req, err := f.request("Fix the cart again")
			require.NoError(t, err)
			require.NotNil(t, req.Request().Plan)
			assert.Equal(t, "Fix the cart", req.Request().Plan.Title)
			assert.Equal(t, planSteps(p), req.Request().Plan.Steps)
		})
	}
}

func TestStartPlanRefusesAnInvalidOrEmptyPlan(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.yaml")
	require.NoError(t, os.WriteFile(bad, []byte("steps:\n  - id: a\n    title: A\n    action: tool\n    config: {tool: {name: nope}}\n"), 0o600))
	_, err := parseStart(t, "--plan", bad).request("goal")
	require.Error(t, err)
	assert.Contains(t, err.Error(), "nope")

	empty := filepath.Join(dir, "empty.json")
	require.NoError(t, os.WriteFile(empty, []byte(`{"steps": []}`), 0o600))
	_, err = parseStart(t, "--plan", empty).request("goal")
	require.Error(t, err)
	assert.Contains(t, err.Error(), "holds no steps")

	list := filepath.Join(dir, "list.json")
	require.NoError(t, os.WriteFile(list, []byte(`[{"title": "Only", "action": "llm", "config": {"llm": {"prompt": "go"}}}]`), 0o600))
	req, err := parseStart(t, "--plan", list).request("goal")
	require.NoError(t, err, "a bare list of steps is a plan too")
	assert.Len(t, req.Request().Plan.Steps, 1)
}
