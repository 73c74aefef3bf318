package devserver

import (
	"bytes"
	"context"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.temporal.io/api/enums/v1"
	"go.temporal.io/api/serviceerror"
	"go.temporal.io/sdk/client"
)

func TestSearchAttributeArgsNameTheContract(t *testing.T) {
	got := strings.Join(SearchAttributeArgs(), " ")
	assert.Equal(t, "--search-attribute PlanPhase=Keyword --search-attribute PlanAwaiting=Keyword --search-attribute PlanProgress=Int --search-attribute PlanGoal=Text", got)
}

func TestFindTemporalHonoursTheEnvironment(t *testing.T) {
	bin, err := FindTemporal(context.Background())
	require.NoError(t, err)
	t.Setenv(BinaryEnv, bin)
	got, err := FindTemporal(context.Background())
	require.NoError(t, err)
	assert.Equal(t, bin, got)

	t.Setenv(BinaryEnv, "/nonexistent/temporal")
	got, err = FindTemporal(context.Background())
	require.NoError(t, err)
	assert.NotEqual(t, "/nonexistent/temporal", got, "a missing override is ignored")
}

// The one binary that runs client commands and the dev server is the CLI
// the install script builds: v1.9.1, stamped as such, carrying Server 1.32.
func TestFindTemporalIsTheCLIWithServer132(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("go is needed to build the Temporal CLI")
	}
	t.Setenv(BinaryEnv, "")
	bin, err := FindTemporal(context.Background())
	require.NoError(t, err)
	out, err := exec.Command(bin, "--version").CombinedOutput()
	require.NoError(t, err, string(out))
	assert.Contains(t, string(out), "temporal version 1.9.1 (Server 1.32.")
	assert.Contains(t, string(out), "UI 2.54.1")
}

func TestRepoRootFindsTheModule(t *testing.T) {
	root, err := RepoRoot()
	require.NoError(t, err)
	assert.True(t, isModuleRoot(root))
}

func TestDynamicConfigArgsInKeyOrder(t *testing.T) {
	got := dynamicConfigArgs(map[string]string{"history.maximumSignalsPerExecution": "9500", "a.b": "true"})
	assert.Equal(t, []string{"--dynamic-config-value", "a.b=true",
		"--dynamic-config-value", "history.maximumSignalsPerExecution=9500"}, got)
	assert.Empty(t, dynamicConfigArgs(nil))
}

// Start runs the CLI's dev server as make dev-server and the demo do: its
// state survives a restart on the same file, a dynamic config value given
// to Start holds (limit.maxIDLength is 1000 unless it took effect), and the
// errors the server logs while it stops are not passed on.
func TestStartKeepsStateInTheDBFileAndTakesDynamicConfig(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	var stderr bytes.Buffer // written only until Stop returns
	opts := Config{DBFile: filepath.Join(t.TempDir(), "temporal.db"), Stderr: &stderr,
		DynamicConfig: map[string]string{"limit.maxIDLength": "200"}}
	srv, err := Start(ctx, opts)
	require.NoError(t, err)
	t.Cleanup(func() { _ = srv.Stop() })
	start := client.StartWorkflowOptions{ID: "kept", TaskQueue: "nobody-polls"}
	run, err := srv.Client.ExecuteWorkflow(ctx, start, "Kept")
	require.NoError(t, err)
	start.ID = strings.Repeat("x", 300)
	_, err = srv.Client.ExecuteWorkflow(ctx, start, "Kept")
	var invalid *serviceerror.InvalidArgument
	require.ErrorAs(t, err, &invalid, "a 300-character workflow ID passes the default limit")
	require.NoError(t, srv.Stop())
	assert.Empty(t, stderr.String())

	opts.Stderr = nil
	again, err := Start(ctx, opts)
	require.NoError(t, err)
	t.Cleanup(func() { _ = again.Stop() })
	desc, err := again.Client.DescribeWorkflow(ctx, "kept", run.GetRunID())
	require.NoError(t, err)
	assert.Equal(t, enums.WORKFLOW_EXECUTION_STATUS_RUNNING, desc.Status)
	require.NoError(t, again.Stop())
}
