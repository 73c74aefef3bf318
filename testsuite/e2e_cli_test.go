package testsuite

import (
	"context"
	"encoding/json"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/planmode/planmode/signals"
)

// planState mirrors the CLI's show answer.
type planState struct {
	WorkflowID string              `json:"workflowId"`
	Progress   signals.Progress    `json:"progress"`
	Options    signals.OptionsView `json:"options"`
	Plan       signals.PlanView    `json:"plan"`
	Pending    signals.Pending     `json:"pending"`
}

// TestCLIDrivesAPlanToTheEnd starts a plan with the CLI, waits for its
// options, selects one, answers any skip confirmation and reads the result,
// all through the commands an operator types.
func TestCLIDrivesAPlanToTheEnd(t *testing.T) {
	isolate(t)
	pw := startPlanWorker(t)
	id := "plan-e2e-" + strings.ReplaceAll(pw.queue, "/", "-")

	var started struct {
		WorkflowID string `json:"workflowId"`
		RunID      string `json:"runId"`
	}
	pw.cliJSON(t, &started, "start", "Add a percentage discount to the cart total", "--requirement", "keep tests green",
		"--workspace", pw.workspace, "--id", id)
	require.Equal(t, id, started.WorkflowID)
	require.NotEmpty(t, started.RunID)

	desc, err := pw.srv.Client.DescribeWorkflow(context.Background(), id, "")
	require.NoError(t, err)
	summary, err := desc.GetStaticSummary()
	require.NoError(t, err)
	assert.Equal(t, "Add a percentage discount to the cart total", summary, "the Web UI shows the goal")
	details, err := desc.GetStaticDetails()
	require.NoError(t, err)
	assert.Contains(t, details, "keep tests green")

	again := pw.cli(t, "start", "Same id again", "--id", id)
	assert.Equal(t, 4, again.code, "a plan id in use is refused: %s", again.errOut)

	watch := pw.cli(t, "watch", id)
	require.Equal(t, 0, watch.code, watch.errOut)
	assert.Contains(t, watch.out, "[  0%] awaiting-selection", "without a terminal, a line per change")
	assert.Contains(t, watch.out, "waits for selection")
	assert.Contains(t, watch.out, "Next: planmode select "+id)

	require.Eventually(t, func() bool {
		res := pw.cli(t, "list", "--awaiting", string(signals.AwaitingSelection))
		return res.code == 0 && strings.Contains(res.out, id) && strings.Contains(res.out, "Add a percentage discount")
	}, loadedWait, 100*time.Millisecond, "list finds the plan by what it waits for")

	show := pw.cli(t, "show", id)
	require.Equal(t, 0, show.code, show.errOut)
	for _, want := range []string{"Options (revision 1)", "Comparison:", "OPTION", "COMPLEXITY", "Next: planmode select " + id} {
		assert.Contains(t, show.out, want)
	}

	bad := pw.cli(t, "select", id, "no-such-option")
	assert.Equal(t, 4, bad.code, "an unknown option is rejected: %s", bad.errOut)
	assert.Contains(t, bad.errOut, `rejected: unknown option "no-such-option"`)
	assert.NotContains(t, bad.errOut, "retryable", "the SDK's decorations are dropped")

	var selected signals.SelectOptionResponse
	pw.cliJSON(t, &selected, "select", id, "--rank", "1", "--feedback", "go")
	require.NotEmpty(t, selected.Option.ID)

	finishPlan(t, pw, id)

	var res signals.Result
	pw.cliJSON(t, &res, "result", id)
	assert.Equal(t, signals.StatusCompleted, res.Status, res.Error)
	assert.Equal(t, selected.Option.ID, res.SelectedOptionID)
	assert.True(t, res.Offline)
	assert.NotEmpty(t, res.Summary)

	text := pw.cli(t, "result", id)
	assert.Contains(t, text.out, "Status: completed")
}

// finishPlan watches the plan to its end, approving skips it asks about.
func finishPlan(t *testing.T, pw *planWorker, id string) {
	t.Helper()
	deadline := time.Now().Add(90 * time.Second)
	for time.Now().Before(deadline) {
		w := pw.cliWith(t, true, "", "watch", id)
		require.Equal(t, 0, w.code, w.errOut)
		var st planState
		pw.cliJSON(t, &st, "show", id)
		if st.Progress.Phase.Terminal() {
			assert.Contains(t, w.out, "100% |", "a terminal gets a progress bar")
			assert.Contains(t, w.out, "✓ 1 ")
			assert.Contains(t, w.out, "Next: planmode result "+id)
			return
		}
		for _, sc := range st.Pending.SkipConfirmations {
			c := pw.cli(t, "confirm-skip", id, sc.RequestID, "--approve", "--note", "fine")
			require.Equal(t, 0, c.code, c.errOut)
		}
	}
	t.Fatalf("plan %s did not end in time", id)
}

func TestCLIExitCodesAgainstAServer(t *testing.T) {
	isolate(t)
	pw := startPlanWorker(t)
	cases := []struct {
		name string
		args []string
		want int
	}{
		{name: "unknown plan", args: []string{"show", "plan-does-not-exist"}, want: 3},
		{name: "unknown plan select", args: []string{"select", "plan-does-not-exist", "--rank", "1"}, want: 3},
		{name: "list with an unknown phase", args: []string{"list", "--phase", "no-such-phase"}, want: 4},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			res := pw.cli(t, tc.args...)
			assert.Equal(t, tc.want, res.code, "stdout %s stderr %s", res.out, res.errOut)
		})
	}
}

// TestCLIAnswersRefinesAndCancels asks questions, answers them, refines
// the options and cancels the plan, which then reports a cancelled result.
func TestCLIAnswersRefinesAndCancels(t *testing.T) {
	isolate(t)
	pw := startPlanWorker(t)
	id := "plan-e2e-" + pw.queue

	start := pw.cli(t, "start", "Add discounts", "--ask-questions", "--workspace", pw.workspace, "--id", id)
	require.Equal(t, 0, start.code, start.errOut)
	assert.Contains(t, start.out, "started plan "+id)

	watch := pw.cli(t, "watch", id)
	require.Equal(t, 0, watch.code, watch.errOut)
	require.Contains(t, watch.out, "waits for clarification")
	assert.Contains(t, watch.out, "Next: planmode answer "+id)

	var pending signals.Pending
	var st planState
	pw.cliJSON(t, &st, "show", id)
	pending = st.Pending
	require.NotNil(t, pending.Clarification)
	args := []string{"answer", id}
	for i := range pending.Clarification.Questions {
		args = append(args, "--answer", strconv.Itoa(i+1)+"=as the README says")
	}
	var answered signals.ClarificationResponse
	pw.cliJSON(t, &answered, args...)
	assert.Equal(t, len(pending.Clarification.Questions), answered.Accepted)
	assert.Empty(t, answered.Remaining)

	unknown := pw.cli(t, "answer", id, "--answer", "99=late")
	assert.Equal(t, 4, unknown.code, "answers are no longer pending: %s", unknown.errOut)

	watch = pw.cli(t, "watch", id)
	require.Equal(t, 0, watch.code, watch.errOut)
	require.Contains(t, watch.out, "waits for selection")

	var refined signals.OptionsView
	pw.cliJSON(t, &refined, "refine", id, "--feedback", "fewer steps")
	assert.Equal(t, 2, refined.Revision)
	assert.NotEmpty(t, refined.Options)

	chosen := pw.cliWith(t, true, "2\n", "select", id)
	require.Equal(t, 0, chosen.code, chosen.errOut)
	assert.Contains(t, chosen.out, "=== Implementation Options ===")
	assert.Contains(t, chosen.out, "Select an option (1-")
	assert.Contains(t, chosen.out, "selected "+refined.Options[1].ID)

	cancel := pw.cli(t, "cancel", id)
	require.Equal(t, 0, cancel.code, cancel.errOut)
	assert.Contains(t, cancel.out, "cancellation requested")

	ended := pw.cli(t, "result", id, "--output", "json")
	assert.Equal(t, 5, ended.code, "a cancelled plan's result exits 5")
	assert.Contains(t, ended.errOut, "the plan ended cancelled")
	var res signals.Result
	require.NoError(t, json.Unmarshal([]byte(ended.out), &res), ended.out)
	assert.Equal(t, signals.StatusCancelled, res.Status)

	after := pw.cli(t, "watch", id)
	assert.Equal(t, 0, after.code, after.errOut)
	assert.Contains(t, after.out, "Next: planmode result "+id)
}
