package workflows

import (
	"os"
	"testing"

	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/worker"
	"go.temporal.io/sdk/workflow"
)

// TestReplayRecordedHistory replays histories recorded on a real server
// (see the TestRecord tests): a change that makes the workflow issue
// other commands for the same inputs fails here, before it breaks running
// workflows. Such a change needs workflow.GetVersion, or a new recording
// when no run of the old code can still be open. The completed run
// predates the change ids of versions.go and replays their old paths; the
// failed and the cancelled run replay the new ones, resolved one id each;
// the bounded run replays them resolved by boundedHistoryChange alone, the
// lease run resolved by workspaceLeaseChange alone, its workspace leased
// and released, the goal-digest run resolved by goalDigestChange alone,
// PlanGoal set from its recorded GoalAttr local activity. Each replays under its recorded workflow and run ids,
// which name its webhook children.
func TestReplayRecordedHistory(t *testing.T) {
	for _, file := range []string{historyFile, failedHistoryFile, cancelledHistoryFile, boundedHistoryFile, leaseHistoryFile,
		goalDigestFile} {
		t.Run(file, func(t *testing.T) {
			f, err := os.Open(file)
			require.NoError(t, err)
			defer f.Close()
			hist, err := client.HistoryFromJSON(f, client.HistoryJSONOptions{})
			require.NoError(t, err)
			started := hist.GetEvents()[0].GetWorkflowExecutionStartedEventAttributes()
			exec := workflow.Execution{ID: started.GetWorkflowId(), RunID: started.GetOriginalExecutionRunId()}
			require.NotEmpty(t, exec.ID)

			r := worker.NewWorkflowReplayer()
			r.RegisterWorkflow(PlanMode)
			require.NoError(t, r.ReplayWorkflowHistoryWithOptions(nil, hist, worker.ReplayWorkflowHistoryOptions{OriginalExecution: exec}))
		})
	}
}
