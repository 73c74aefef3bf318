package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/api/operatorservice/v1"
	"go.temporal.io/api/serviceerror"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/temporal"
	sdktest "go.temporal.io/sdk/testsuite"
	"go.temporal.io/sdk/worker"
	"go.temporal.io/sdk/workflow"
)

// asServerEnv makes the test binary run as the server: the tests hand
// their own executable to the SDK as the dev server's binary, so they drive
// the real command line without a separate build.
const asServerEnv = "TEMPORAL_SERVER_TEST_AS_MAIN"

func TestMain(m *testing.M) {
	if os.Getenv(asServerEnv) == "1" {
		main()
	}
	os.Exit(m.Run())
}

var stageAttr = temporal.NewSearchAttributeKeyKeyword("PlanStage")

// counterWorkflow waits for an "add" update and returns the total.
func counterWorkflow(ctx workflow.Context, name string) (string, error) {
	total := 0
	if err := workflow.SetUpdateHandler(ctx, "add", func(ctx workflow.Context, n int) (int, error) {
		total += n
		return total, nil
	}); err != nil {
		return "", err
	}
	if err := workflow.Await(ctx, func() bool { return total > 0 }); err != nil {
		return "", err
	}
	return fmt.Sprintf("%s:%d", name, total), nil
}

func serverBinary(t *testing.T) string {
	t.Helper()
	t.Setenv(asServerEnv, "1")
	exe, err := os.Executable()
	require.NoError(t, err)
	return exe
}

func freeLoopbackPort(t *testing.T) int {
	t.Helper()
	p, err := freePort("127.0.0.1")
	require.NoError(t, err)
	return p
}

// TestStartDevServerAsTheSDKDoes starts the server through the SDK's
// testsuite.StartDevServer, as planmode's harness does, and checks what the
// harness relies on: a workflow and an update run, the search attribute is
// registered, a dynamic config value holds, the UI answers and reaches the
// server, SIGINT ends the process cleanly, and the SQLite file keeps the
// state for a restart that SIGTERM ends.
func TestStartDevServerAsTheSDKDoes(t *testing.T) {
	bin := serverBinary(t)
	db := filepath.Join(t.TempDir(), "temporal.db")
	addr := "127.0.0.1:" + strconv.Itoa(freeLoopbackPort(t))
	uiPort := freeLoopbackPort(t)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()

	srv, err := sdktest.StartDevServer(ctx, sdktest.DevServerOptions{
		ExistingPath:     bin,
		ClientOptions:    &client.Options{HostPort: addr, Namespace: "planmode-test"},
		DBFilename:       db,
		EnableUI:         true,
		UIPort:           strconv.Itoa(uiPort),
		LogLevel:         "error",
		SearchAttributes: temporal.NewSearchAttributes(stageAttr.ValueSet("")),
		ExtraArgs:        []string{"--dynamic-config-value", "limit.maxIDLength=200"},
		Stdout:           io.Discard,
	})
	require.NoError(t, err)
	c := srv.Client()

	id := runCounter(ctx, t, c)
	checkSearchAttribute(ctx, t, c, "planmode-test", id)

	// limit.maxIDLength is 1000 unless the flag took effect.
	_, err = c.ExecuteWorkflow(ctx, client.StartWorkflowOptions{ID: strings.Repeat("x", 300), TaskQueue: "q"}, counterWorkflow, "y")
	var invalid *serviceerror.InvalidArgument
	require.ErrorAs(t, err, &invalid, "a 300-character workflow ID passes the default limit of 1000")

	checkUI(ctx, t, uiPort, "planmode-test", id)

	c.Close()
	require.NoError(t, srv.Stop(), "SIGINT should end the server with status 0")

	restartFromFile(ctx, t, bin, db, addr, id)
}

// runCounter runs counterWorkflow on a worker, drives it with an update and
// returns its workflow ID once it has completed.
func runCounter(ctx context.Context, t *testing.T, c client.Client) string {
	t.Helper()
	w := worker.New(c, "counter", worker.Options{})
	w.RegisterWorkflow(counterWorkflow)
	require.NoError(t, w.Start())
	defer w.Stop()

	run, err := c.ExecuteWorkflow(ctx, client.StartWorkflowOptions{
		ID:                    "counter-1",
		TaskQueue:             "counter",
		TypedSearchAttributes: temporal.NewSearchAttributes(stageAttr.ValueSet("act")),
	}, counterWorkflow, "n")
	require.NoError(t, err)
	handle, err := c.UpdateWorkflow(ctx, client.UpdateWorkflowOptions{
		WorkflowID:   run.GetID(),
		UpdateName:   "add",
		Args:         []any{2},
		WaitForStage: client.WorkflowUpdateStageCompleted,
	})
	require.NoError(t, err)
	var total int
	require.NoError(t, handle.Get(ctx, &total))
	assert.Equal(t, 2, total)
	var result string
	require.NoError(t, run.Get(ctx, &result))
	assert.Equal(t, "n:2", result)
	return run.GetID()
}

// checkSearchAttribute finds the attribute registered in the namespace, as
// `temporal operator search-attribute list` does, and set on the run.
func checkSearchAttribute(ctx context.Context, t *testing.T, c client.Client, namespace, id string) {
	t.Helper()
	sa, err := c.OperatorService().ListSearchAttributes(ctx, &operatorservice.ListSearchAttributesRequest{Namespace: namespace})
	require.NoError(t, err)
	assert.Equal(t, enumspb.INDEXED_VALUE_TYPE_KEYWORD, sa.GetCustomAttributes()[stageAttr.GetName()])
	desc, err := c.DescribeWorkflowExecution(ctx, id, "")
	require.NoError(t, err)
	payload := desc.GetWorkflowExecutionInfo().GetSearchAttributes().GetIndexedFields()[stageAttr.GetName()]
	require.NotNil(t, payload, "the run carries no %s", stageAttr.GetName())
	assert.JSONEq(t, `"act"`, string(payload.GetData()))
}

// checkUI asks the UI for its page and, through its API proxy, for the
// workflow, which only the server it points at knows.
func checkUI(ctx context.Context, t *testing.T, port int, namespace, id string) {
	t.Helper()
	base := "http://127.0.0.1:" + strconv.Itoa(port)
	status, body := httpGet(ctx, t, base+"/")
	require.Equal(t, http.StatusOK, status)
	assert.Contains(t, strings.ToLower(body), "<html")

	status, body = httpGet(ctx, t, base+"/api/v1/namespaces/"+namespace+"/workflows/"+id)
	require.Equal(t, http.StatusOK, status, body)
	var desc struct {
		WorkflowExecutionInfo struct {
			Execution struct{ WorkflowID string } `json:"execution"`
			Status    string                      `json:"status"`
		} `json:"workflowExecutionInfo"`
	}
	require.NoError(t, json.Unmarshal([]byte(body), &desc), body)
	assert.Equal(t, id, desc.WorkflowExecutionInfo.Execution.WorkflowID, body)
	assert.Equal(t, "WORKFLOW_EXECUTION_STATUS_COMPLETED", desc.WorkflowExecutionInfo.Status, body)
}

func httpGet(ctx context.Context, t *testing.T, url string) (int, string) {
	t.Helper()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	require.NoError(t, err)
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	return resp.StatusCode, string(b)
}

// restartFromFile starts a headless server on the same SQLite file, finds
// the completed run there, and ends the server with SIGTERM.
func restartFromFile(ctx context.Context, t *testing.T, bin, db, addr, id string) {
	t.Helper()
	host, port, _ := strings.Cut(addr, ":")
	cmd := exec.CommandContext(ctx, bin, "server", "start-dev", "--ip", host, "--port", port,
		"--namespace", "planmode-test", "--db-filename", db, "--headless", "--log-level", "error")
	cmd.Stderr = os.Stderr
	require.NoError(t, cmd.Start())
	exited := false
	defer func() {
		if !exited {
			_ = cmd.Process.Kill()
			_ = cmd.Wait()
		}
	}()
	var c client.Client
	require.Eventually(t, func() bool {
		var err error
		c, err = client.DialContext(ctx, client.Options{HostPort: addr, Namespace: "planmode-test"})
		return err == nil
	}, time.Minute, 100*time.Millisecond, "the restarted server does not accept clients")
	desc, err := c.DescribeWorkflowExecution(ctx, id, "")
	c.Close()
	require.NoError(t, err)
	assert.Equal(t, enumspb.WORKFLOW_EXECUTION_STATUS_COMPLETED, desc.GetWorkflowExecutionInfo().GetStatus())

	require.NoError(t, cmd.Process.Signal(syscall.SIGTERM))
	exited = true
	require.NoError(t, cmd.Wait(), "SIGTERM should end the server with status 0")
}
