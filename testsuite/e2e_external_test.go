package testsuite

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/planmode/planmode/signals"
)

// exported is what planmode export prints, read back.
type exported struct {
	Title string           `json:"title"`
	Steps []map[string]any `json:"steps"`
}

// TestCLIExportThenStartRunsTheSamePlan runs a plan to its end, exports
// it, starts a new plan from the export and compares the steps the second
// plan ran with the first's.
func TestCLIExportThenStartRunsTheSamePlan(t *testing.T) {
	isolate(t)
	pw := startPlanWorker(t)
	first := "plan-export-" + pw.queue
	second := first + "-again"

	start := pw.cli(t, "start", "Add a percentage discount to the cart total", "--workspace", pw.workspace,
		"--select", "auto", "--mode", "efficient", "--id", first)
	require.Equal(t, 0, start.code, start.errOut)
	var res signals.Result
	pw.cliJSON(t, &res, "result", first)
	require.Equal(t, signals.StatusCompleted, res.Status, res.Error)

	yamlOut := pw.cli(t, "export", first)
	require.Equal(t, 0, yamlOut.code, yamlOut.errOut)
	assert.Contains(t, yamlOut.out, "steps:", "YAML by default")
	assert.NotContains(t, yamlOut.out, "status:", "an export leaves out what a run fills in")
	file := filepath.Join(t.TempDir(), "plan.yaml")
	require.NoError(t, os.WriteFile(file, []byte(yamlOut.out), 0o600))

	start = pw.cli(t, "start", "Do it again", "--plan", file, "--workspace", pw.workspace, "--id", second)
	require.Equal(t, 0, start.code, start.errOut)
	var again signals.Result
	pw.cliJSON(t, &again, "result", second)
	require.Equal(t, signals.StatusCompleted, again.Status, again.Error)
	assert.Equal(t, signals.ExternalOptionID, again.SelectedOptionID, "a plan handed in needs no selection")

	var a, b exported
	pw.cliJSON(t, &a, "export", first)
	pw.cliJSON(t, &b, "show", second, "--export")
	require.NotEmpty(t, a.Steps)
	assert.Equal(t, a.Title, b.Title)
	wantSteps, _ := json.Marshal(a.Steps)
	gotSteps, _ := json.Marshal(b.Steps)
	assert.JSONEq(t, string(wantSteps), string(gotSteps), "the second plan is the first one's steps")
}
