package testsuite

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/planmode/planmode/signals"
)

// TestTemporalCLIApprovesAGatedCall: another service or an operator with
// only the temporal CLI starts a plan by the contract's names, sees the
// gated call in the pending query and approves it with the contract's
// minimal payload (the request id and a note); the call runs and the plan
// completes, the approver's note on record.
func TestTemporalCLIApprovesAGatedCall(t *testing.T) {
	t.Parallel()
	g := startGateRig(t, nil)
	srv, id := g.srv, "plan-tcli-approve-"+g.queue
	ctx, cancel := testContext(t)
	defer cancel()
	req := gatedRequest("Write out.txt once someone says so", g.workspace,
		signals.ApprovalPolicy{Rules: askWriteFile}, writeOut("write"))
	_, err := temporalCLI(t, srv, "workflow", "start", "--type", signals.WorkflowType, "--task-queue", g.queue,
		"--workflow-id", id, "--input", mustJSON(t, req))
	require.NoError(t, err)

	var gated signals.ToolApproval
	require.Eventually(t, func() bool {
		p, err := tryCLIQuery(t, srv, id, signals.PendingQuery)
		if err != nil || len(p.Approvals) == 0 {
			return false
		}
		gated = p.Approvals[0]
		return p.Awaiting == signals.AwaitingApproval
	}, loadedWait, 50*time.Millisecond, "the temporal CLI's pending query shows the gated call")
	assert.Equal(t, "write", gated.StepID)
	assertNotWritten(t, g.workspace, "out.txt")

	var approved struct {
		Result signals.ApprovalDecision `json:"result"`
	}
	temporalJSON(t, srv, &approved, "workflow", "update", "execute", "--workflow-id", id,
		"--name", signals.ApproveToolCall.Name, "--input", `{"requestId":"`+gated.RequestID+`","note":"looks right"}`)
	assert.Equal(t, gated.RequestID, approved.Result.RequestID)

	res, err := g.pc.Result(ctx, id)
	require.NoError(t, err)
	require.Equal(t, signals.StatusCompleted, res.Status, res.Error)
	got, err := os.ReadFile(filepath.Join(g.workspace, "out.txt"))
	require.NoError(t, err, "the approved call ran")
	assert.Equal(t, "x", string(got))
}
