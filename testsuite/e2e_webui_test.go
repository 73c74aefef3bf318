package testsuite

import (
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/planmode/planmode/planclient"
	"github.com/planmode/planmode/signals"
)

// TestWebUIShowsCurrentDetails opens a run in the Temporal Web UI with a
// headless Chromium, as an operator would, and reads its current details:
// the options and the exact commands to select one while the run waits,
// then the steps and the progress once it has run. It saves screenshots
// of both.
func TestWebUIShowsCurrentDetails(t *testing.T) {
	tab := newBrowser(t)
	pw := startPlanWorker(t)
	pc := planclient.New(pw.srv.Client, planclient.WithTaskQueue(pw.queue))
	id := "plan-webui-" + pw.queue
	ctx, cancel := testContext(t)
	defer cancel()

	req := signals.StartRequest{
		Goal:      "Add a percentage discount to the cart total",
		Workspace: pw.workspace,
		Execution: signals.ExecutionPolicy{Mode: signals.ExecEfficient},
	}
	view, err := pc.StartAndGetOptions(ctx, id, req)
	require.NoError(t, err)
	require.NotEmpty(t, view.Options)
	require.Eventually(t, func() bool {
		p, err := pc.Progress(ctx, id)
		return err == nil && p.Awaiting == signals.AwaitingSelection
	}, loadedWait, 100*time.Millisecond, "the run never waited for a selection")

	ui := &webUI{t: t, tab: tab, base: pw.srv.UIAddress(), ns: pw.srv.Namespace, dir: artifactDir(t)}
	waiting := ui.currentDetails(id, signals.SelectOption.Name)
	ui.screenshot("awaiting-selection-page")
	assert.Contains(t, waiting, "Phase: awaiting-selection · Mode: plan")
	assert.Contains(t, waiting, "Waiting for selection")
	assert.Contains(t, waiting, "Options (revision 1)")
	for _, o := range view.Options {
		assert.Contains(t, waiting, runePrefix(o.Title, 40), "option %s", o.ID)
		assert.Contains(t, waiting, o.ID)
	}
	assert.Contains(t, waiting, "temporal workflow update execute --workflow-id "+id+" --name select-option --input '{\"rank\":1}'")
	assert.Contains(t, waiting, "planmode select "+id+" --rank 1")
	ui.screenshotDetails(signals.SelectOption.Name, "awaiting-selection-details")

	selected, err := pc.Select(ctx, id, signals.SelectOptionRequest{Rank: 1})
	require.NoError(t, err)
	res, err := pc.Result(ctx, id)
	require.NoError(t, err)
	require.Equal(t, signals.StatusCompleted, res.Status, res.Error)

	done := ui.currentDetails(id, "Phase: completed")
	ui.screenshot("completed-page")
	n := len(res.Plan.Steps)
	assert.Contains(t, done, fmt.Sprintf("100%% · %d of %d steps done (%d completed)", n, n, n))
	assert.Contains(t, done, "Plan: "+runePrefix(selected.Option.Plan.Title, 40))
	for _, s := range res.Plan.Steps {
		assert.Contains(t, done, runePrefix(s.Title, 40), "step %d", s.Number)
	}
	assert.Contains(t, done, "✓ completed")
	assert.Contains(t, done, "offline model")
	assert.NotContains(t, done, signals.SelectOption.Name, "no selection commands once the run is over")
	ui.screenshotDetails("Phase: completed", "completed-details")
}

// runePrefix is the first n runes of s, what survives the details' cuts.
func runePrefix(s string, n int) string {
	r := []rune(s)
	if len(r) > n {
		r = r[:n]
	}
	return string(r)
}
