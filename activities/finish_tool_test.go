package activities_test

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/planmode/planmode/activities"
	"github.com/planmode/planmode/internal/testkit"
	"github.com/planmode/planmode/tools"
	"github.com/planmode/planmode/workspace"
	"github.com/planmode/planmode/workspace/folders"
)

func TestRunToolFinishPlanAsksToExit(t *testing.T) {
	ws := testkit.Workspace(t, map[string]string{"cart.go": "package cart\n"})
	a := &activities.Tools{Folders: &folders.Folders{Root: workspace.Root{Dir: filepath.Dir(ws)}}}
	call := func(args string, readOnly bool) activities.ToolOutput {
		t.Helper()
		out, err := a.RunTool(context.Background(), activities.ToolInput{PlanID: "p1", StepID: "s2", ReadOnly: readOnly,
			Workspace: ws, Call: activities.ToolCall{ID: "c1", Name: tools.FinishPlan, Arguments: args}})
		require.NoError(t, err)
		return out
	}

	out := call(`{"reason":"the discount already applies"}`, false)
	assert.True(t, out.Success, out.Error)
	assert.True(t, out.ExitPlan)
	assert.Equal(t, "the discount already applies", out.ExitReason)
	assert.Equal(t, "the discount already applies", out.Output)

	out = call(`{}`, false)
	assert.False(t, out.Success)
	assert.False(t, out.ExitPlan, "a refused call ends nothing")
	assert.Contains(t, out.Error, `missing argument "reason"`)

	out = call(`{"reason":"done"}`, true)
	assert.False(t, out.Success)
	assert.False(t, out.ExitPlan, "planning and reflection cannot end the plan")
	assert.Contains(t, out.Error, "not available while planning or reflecting")
}
