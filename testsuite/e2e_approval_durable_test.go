package testsuite

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/planmode/planmode/plan"
	"github.com/planmode/planmode/planclient"
	"github.com/planmode/planmode/signals"
)

// TestApprovalSurvivesAWorkerKill gates a write on a worker process,
// kills that process with SIGKILL while the plan waits for approval, and
// starts a new one: the new worker answers the same pending request, an
// approval sent to it runs the call, and the plan completes.
func TestApprovalSurvivesAWorkerKill(t *testing.T) {
	t.Parallel()
	srv, bin, env, queue, workspace := workerRig(t, nil)
	first := startWorkerProcess(t, bin, env)

	ctx, cancel := testContext(t)
	defer cancel()
	pc := planclient.New(srv.Client, planclient.WithTaskQueue(queue))
	id := "plan-gate-kill-" + queue
	_, err := pc.Start(ctx, id, gatedRequest("Write out.txt once approved, whatever happens to the worker", workspace,
		signals.ApprovalPolicy{Rules: askWriteFile}, writeOut("write")))
	require.NoError(t, err)
	before := awaitApproval(ctx, t, pc, id, "write", 1)

	first.kill()
	require.True(t, errKilled(first.err), "the first worker died of SIGKILL: %v", first.err)
	second := startWorkerProcess(t, bin, env)
	after := awaitApproval(ctx, t, pc, id, "write", 1)
	assert.Equal(t, before.RequestID, after.RequestID, "the request outlived its worker")
	assert.Equal(t, before.ArgsDigest, after.ArgsDigest)
	assertNotWritten(t, workspace, "out.txt")

	_, err = approveAsShown(ctx, pc, id, after, approver, "after the restart")
	require.NoError(t, err, "worker output:\n%s", second.out)
	res, err := pc.Result(ctx, id)
	require.NoError(t, err, "worker output:\n%s", second.out)
	require.Equal(t, signals.StatusCompleted, res.Status, endState(ctx, pc, id))
	assert.Equal(t, plan.StepCompleted, stepOf(t, res, "write").Status)
	got, err := os.ReadFile(filepath.Join(workspace, "out.txt"))
	require.NoError(t, err, "the approved call ran on the new worker")
	assert.Equal(t, "x", string(got))
}
