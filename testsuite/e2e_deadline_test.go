package testsuite

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/planmode/planmode/internal/config"
	"github.com/planmode/planmode/plan"
	"github.com/planmode/planmode/planclient"
	"github.com/planmode/planmode/signals"
)

// TestDeadlineCancelsARunningCommand hands a worker process a plan whose
// one step runs make, which sleeps ten seconds and then writes a file,
// with a deadline of three seconds: at the deadline the command is
// killed, the step ends cancelled with the reason, the file is never
// written, and the plan fails with the reason and its partial summary.
func TestDeadlineCancelsARunningCommand(t *testing.T) {
	t.Parallel()
	srv, bin, env, queue, _ := workerRig(t, nil)
	root := envValue(env, config.KeyWorkspaceRoot)
	ws := filepath.Join(root, "slow")
	require.NoError(t, os.MkdirAll(ws, 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(ws, "Makefile"), []byte("all:\n\tsleep 10\n\techo made > made.txt\n"), 0o644))
	w := startWorkerProcess(t, bin, env)

	ctx, cancel := testContext(t)
	defer cancel()
	pc := planclient.New(srv.Client, planclient.WithTaskQueue(queue))
	id := "plan-deadline-" + queue
	step := toolStep("make", plan.ToolRunCommand, map[string]any{"command": "make"})
	_, err := pc.Start(ctx, id, signals.StartRequest{Goal: "make it", Workspace: ws, Deadline: "3s",
		Plan: &signals.ExternalPlan{Title: "Make", Steps: []plan.Step{step}}})
	require.NoError(t, err)
	res, err := pc.Result(ctx, id)
	require.NoError(t, err, "worker output:\n%s", w.out)

	require.Equal(t, signals.StatusFailed, res.Status)
	assert.Contains(t, res.Error, "deadline reached")
	s := stepOf(t, res, "make")
	assert.Equal(t, plan.StepCancelled, s.Status, "the running step is cancelled at the deadline: %s", s.Note)
	assert.Contains(t, s.Note, "deadline reached")
	assert.NotEmpty(t, res.Summary)
	_, err = os.Stat(filepath.Join(ws, "made.txt"))
	assert.True(t, os.IsNotExist(err), "the command was killed before it wrote its file")
}
