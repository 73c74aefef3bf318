package workflows

import (
	"testing"

	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/worker"
)

// TestReplayRecordedHistory replays a history recorded on a real server
// (see TestRecordHistory): a change that makes the workflow issue other
// commands for the same inputs fails here, before it breaks running
// workflows. Such a change needs workflow.GetVersion, or a new recording
// when no run of the old code can still be open.
func TestReplayRecordedHistory(t *testing.T) {
	r := worker.NewWorkflowReplayer()
	r.RegisterWorkflow(PlanMode)
	require.NoError(t, r.ReplayWorkflowHistoryFromJSONFile(nil, historyFile))
}
