package activities

import (
	"context"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/temporal"
	sdktest "go.temporal.io/sdk/testsuite"
	"go.temporal.io/sdk/workflow"

	"github.com/planmode/planmode/internal/testkit"
	"github.com/planmode/planmode/tools"
	"github.com/planmode/planmode/workspace"
)

// runWithHeartbeatTimeout runs fn with in as an activity under a heartbeat
// timeout and a single attempt, in the SDK's workflow test environment,
// which times out an activity whose heartbeats stop for longer than that.
func runWithHeartbeatTimeout[In, Out any](t *testing.T, timeout time.Duration, fn func(context.Context, In) (Out, error), in In) (Out, error) {
	t.Helper()
	var suite sdktest.WorkflowTestSuite
	env := suite.NewTestWorkflowEnvironment()
	env.SetTestTimeout(20 * time.Second)
	env.RegisterActivity(fn)
	env.ExecuteWorkflow(func(ctx workflow.Context) (Out, error) {
		ctx = workflow.WithActivityOptions(ctx, workflow.ActivityOptions{
			StartToCloseTimeout: time.Minute,
			HeartbeatTimeout:    timeout,
			RetryPolicy:         &temporal.RetryPolicy{MaximumAttempts: 1},
		})
		var out Out
		err := workflow.ExecuteActivity(ctx, fn, in).Get(ctx, &out)
		return out, err
	})
	require.True(t, env.IsWorkflowCompleted())
	var out Out
	if err := env.GetWorkflowError(); err != nil {
		return out, err
	}
	require.NoError(t, env.GetWorkflowResult(&out))
	return out, nil
}

func TestLLMCallOutlivesAShortHeartbeatTimeout(t *testing.T) {
	// The worker's interval (10s) is far above the timeout: only the cap
	// keeps the call alive.
	a := worker{LLM: slowLLM{delay: 900 * time.Millisecond}}.set()
	out, err := runWithHeartbeatTimeout(t, 300*time.Millisecond, a.Summarize, SummarizeInput{Goal: "g"})
	require.NoError(t, err, "the call heartbeats at a third of the timeout")
	assert.Equal(t, "done", out.Summary)
}

func TestCommandOutlivesAShortHeartbeatTimeout(t *testing.T) {
	if _, err := exec.LookPath("sleep"); err != nil {
		t.Skip("needs sleep")
	}
	ws := testkit.Workspace(t, nil)
	cfg := tools.DefaultConfig()
	cfg.AllowCommands = []string{"sleep"}
	require.Equal(t, tools.DefaultHeartbeatInterval, cfg.HeartbeatInterval, "the configured interval is far above the timeout")
	a := worker{Tools: tools.Builtin(cfg), Workspace: workspace.Root{Dir: filepath.Dir(ws)}}.set()
	out, err := runWithHeartbeatTimeout(t, 300*time.Millisecond, a.RunTool,
		toolCall(ws, "run_command", `{"command":"sleep","args":["0.9"]}`))
	require.NoError(t, err, "the command heartbeats at a third of the timeout")
	assert.True(t, out.Success, out.Error)
}
