package workflows

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	sdkpb "go.temporal.io/api/sdk/v1"
	"go.temporal.io/sdk/client"

	"github.com/planmode/planmode/signals"
)

// The details themselves are view.Details, tested in package view; these
// tests read them through the workflow, as the Web UI does.

// metadataQuery is the built-in query the Web UI reads current details
// with; the SDK does not export its name.
const metadataQuery = "__temporal_workflow_metadata"

// currentDetails reads the run's current details as the Web UI does.
func currentDetails(h *harness) string {
	h.t.Helper()
	v, err := h.env.QueryWorkflow(metadataQuery)
	require.NoError(h.t, err)
	var md sdkpb.WorkflowMetadata
	require.NoError(h.t, v.Get(&md))
	return md.GetCurrentDetails()
}

func TestCurrentDetailsFollowTheRun(t *testing.T) {
	h := newHarness(t)
	h.env.SetStartWorkflowOptions(client.StartWorkflowOptions{ID: "plan-details"})
	var waiting, running string
	h.at(30*time.Second, func() { waiting = currentDetails(h) })
	h.selectAt(time.Minute)
	h.at(time.Minute+stepTime/2, func() { running = currentDetails(h) })
	res := h.run(manualReq())
	require.Equal(t, signals.StatusCompleted, res.Status)

	assert.Contains(t, waiting, "**Waiting for selection**")
	assert.Contains(t, waiting, "| 1 | Careful `r1-o1` |")
	assert.Contains(t, waiting, "| 2 | Quick `r1-o2` |")
	assert.Contains(t, waiting, "--workflow-id plan-details --namespace default-test-namespace --name select-option --input '{\"rank\":1}'")

	assert.Contains(t, running, "**Phase:** executing · **Mode:** act")
	assert.Contains(t, running, "**0%** · 0 of 3 steps done (1 running, 2 pending)")
	assert.Contains(t, running, "| 1 | ▶ running | Step s1 | llm |")
	assert.NotContains(t, running, "select-option", "no selection commands once a plan runs")

	done := currentDetails(h)
	assert.Contains(t, done, "**Phase:** completed")
	assert.Contains(t, done, "**100%** · 3 of 3 steps done (3 completed)")
	assert.Contains(t, done, "| 3 | ✓ completed | Step s3 | llm | 1 | 1m0s | done s3 |")
	assert.Contains(t, done, "**Usage:** ")
}
