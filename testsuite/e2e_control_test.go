package testsuite

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/planmode/planmode/signals"
)

// appendStep is an edits file as an operator writes it, in YAML.
const appendStep = `edits:
  - op: append
    step:
      title: Read the README again
      action: tool
      config:
        tool:
          name: read_file
          params: {path: README.md}
reason: one more look
`

// TestCLIPausesEditsAndResumes pauses a plan before selection, selects,
// edits the waiting plan, resumes it and finds the added step in the
// result.
func TestCLIPausesEditsAndResumes(t *testing.T) {
	isolate(t)
	pw := startPlanWorker(t)
	id := "plan-e2e-" + pw.queue

	require.Equal(t, 0, pw.cli(t, "start", "Add a percentage discount to the cart total", "--workspace", pw.workspace, "--id", id).code)
	require.Contains(t, pw.cli(t, "watch", id).out, "waits for selection")

	var paused signals.ControlState
	pw.cliJSON(t, &paused, "pause", id, "--reason", "review first")
	assert.True(t, paused.Paused)
	again := pw.cli(t, "pause", id)
	assert.Equal(t, 4, again.code, "pausing twice is rejected: %s", again.errOut)

	rollback := pw.cli(t, "rollback", id)
	assert.Equal(t, 4, rollback.code, "nothing to roll back before execution: %s", rollback.errOut)

	var selected signals.SelectOptionResponse
	pw.cliJSON(t, &selected, "select", id, "--rank", "1")
	watch := pw.cli(t, "watch", id)
	require.Equal(t, 0, watch.code, watch.errOut)
	require.Contains(t, watch.out, "waits for resume")
	assert.Contains(t, watch.out, "Next: planmode resume "+id)

	edits := filepath.Join(t.TempDir(), "edits.yaml")
	require.NoError(t, os.WriteFile(edits, []byte(appendStep), 0o600))
	var edited signals.EditPlanResponse
	pw.cliJSON(t, &edited, "edit", id, "--file", edits)
	steps := edited.Plan.Steps
	require.NotEmpty(t, steps)
	assert.Equal(t, "Read the README again", steps[len(steps)-1].Title)
	assert.Equal(t, len(selected.Option.Plan.Steps)+1, len(steps))

	text := pw.cli(t, "resume", id)
	require.Equal(t, 0, text.code, text.errOut)
	assert.Contains(t, text.out, "is running")

	finishPlan(t, pw, id)
	var res signals.Result
	pw.cliJSON(t, &res, "result", id)
	assert.Equal(t, signals.StatusCompleted, res.Status, res.Error)
	require.NotNil(t, res.Plan)
	last := res.Plan.Steps[len(res.Plan.Steps)-1]
	assert.Equal(t, "Read the README again", last.Title)
	assert.Equal(t, "completed", string(last.Status))
}
