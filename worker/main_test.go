package main

import (
	"bytes"
	"context"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/spf13/pflag"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	enumspb "go.temporal.io/api/enums/v1"
	taskqueuepb "go.temporal.io/api/taskqueue/v1"
	"go.temporal.io/api/workflowservice/v1"

	"github.com/planmode/planmode/activities"
	"github.com/planmode/planmode/internal/config"
	"github.com/planmode/planmode/internal/devserver"
	"github.com/planmode/planmode/llm/offline"
	"github.com/planmode/planmode/testsuite"
)

func TestMain(m *testing.M) { testsuite.Main(m) }

// syncBuffer is a bytes.Buffer safe to write from the worker's goroutines
// while the test reads it.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// cleanEnv runs the test in an empty folder with no PLANMODE_ variables.
func cleanEnv(t *testing.T) {
	t.Chdir(t.TempDir())
	for _, k := range []string{config.KeyAddress, config.KeyTaskQueue, config.KeyLLMBaseURL, config.KeyLLMAPIKey,
		config.KeyLLMOffline, config.KeyWorkspaceRoot, config.KeyNamespace, config.KeySnapshotDir} {
		t.Setenv(config.EnvName(k), "")
	}
	t.Setenv(config.ConfigEnv, "")
	t.Setenv(config.EnvName(config.KeyOutputsDir), t.TempDir())
}

func TestRunServesPlanModeUntilCancelled(t *testing.T) {
	cleanEnv(t)
	srv := testsuite.StartDevServer(t)
	queue := testsuite.TaskQueue(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var out syncBuffer
	done := make(chan error, 1)
	go func() {
		done <- run(ctx, []string{"--address", srv.Address(), "--task-queue", queue, "--workspace-root", t.TempDir()}, &out)
	}()

	require.Eventually(t, func() bool {
		resp, err := srv.Client.WorkflowService().DescribeTaskQueue(context.Background(), &workflowservice.DescribeTaskQueueRequest{
			Namespace:     srv.Namespace,
			TaskQueue:     &taskqueuepb.TaskQueue{Name: queue},
			TaskQueueType: enumspb.TASK_QUEUE_TYPE_WORKFLOW,
		})
		return err == nil && len(resp.GetPollers()) > 0
	}, 20*time.Second, 50*time.Millisecond, "the worker polls its task queue")
	require.Eventually(t, func() bool { return strings.Contains(out.String(), "worker started") }, 30*time.Second, 20*time.Millisecond)
	assert.Contains(t, out.String(), "offline model at http://127.0.0.1:")
	assert.Contains(t, out.String(), "deployment="+config.DefaultDeploymentName+" buildId="+config.DefaultBuildID()+" current=true",
		"the worker says which build of which deployment it is, and that it is current")
	assert.Contains(t, out.String(), "commands run isolated", "the worker says how commands are isolated")
	assert.Contains(t, out.String(), "outputs="+os.Getenv(config.EnvName(config.KeyOutputsDir)),
		"the worker says where it keeps full outputs")

	cancel()
	select {
	case err := <-done:
		require.NoError(t, err)
	case <-time.After(30 * time.Second):
		t.Fatal("the worker did not stop")
	}
	assert.Contains(t, out.String(), "stopping worker")
}

func TestRunFailsClearly(t *testing.T) {
	port, err := devserver.FreePort()
	require.NoError(t, err)
	refusing := offline.New(offline.WithAPIKey("right"))
	defer refusing.Close()

	cases := []struct {
		name    string
		args    func(t *testing.T) []string
		env     map[string]string
		wantErr []string
	}{
		{name: "Temporal unreachable", args: func(t *testing.T) []string {
			return []string{"--address", "127.0.0.1:" + strconv.Itoa(port)}
		}, wantErr: []string{"cannot reach Temporal at 127.0.0.1:" + strconv.Itoa(port), "make dev-server", "temporal.address"}},
		{name: "model refuses the key", args: func(t *testing.T) []string {
			return []string{"--address", testsuite.StartDevServer(t).Address(), "--llm-base-url", refusing.URL()}
		}, env: map[string]string{"PLANMODE_LLM_APIKEY": "wrong"}, wantErr: []string{"refused the API key", "llm.apiKey"}},
		{name: "bad configuration", args: func(t *testing.T) []string { return []string{"--log-level", "loud"} },
			wantErr: []string{`log.level "loud"`}},
		{name: "missing workspace", args: func(t *testing.T) []string { return []string{"--workspace-root", "/nonexistent/planmode"} },
			wantErr: []string{"workspace.root"}},
		{name: "config file in the workspace", args: func(t *testing.T) []string {
			// cleanEnv made the current folder the default workspace root.
			require.NoError(t, os.WriteFile(config.FileName, []byte("llm:\n  apiKey: sk-canary\n"), 0o600))
			return nil
		}, wantErr: []string{config.FileName, "lies in workspace.root", "plans could read it"}},
		{name: "outputs in the workspace", args: func(t *testing.T) []string {
			ws := t.TempDir()
			t.Setenv(config.EnvName(config.KeyOutputsDir), filepath.Join(ws, ".outputs"))
			return []string{"--workspace-root", ws}
		}, wantErr: []string{"outputs.dir", "lies in workspace.root", "plans could read it", "PLANMODE_OUTPUTS_DIR"}},
		{name: "snapshots in the workspace", args: func(t *testing.T) []string {
			ws := t.TempDir()
			t.Setenv(config.EnvName(config.KeySnapshotDir), filepath.Join(ws, "snaps"))
			return []string{"--workspace-root", ws}
		}, wantErr: []string{"workspace.snapshotDir", "lies in workspace.root"}},
		{name: "workspace is the file system's root", args: func(t *testing.T) []string {
			return []string{"--workspace-root", "/"}
		}, wantErr: []string{"workspace.root / is the file system's root"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			cleanEnv(t)
			for k, v := range tc.env {
				t.Setenv(k, v)
			}
			var out syncBuffer
			err := run(context.Background(), tc.args(t), &out)
			require.Error(t, err)
			for _, want := range tc.wantErr {
				assert.Contains(t, err.Error(), want)
			}
		})
	}
}

func TestCheckEndpoint(t *testing.T) {
	ok := offline.New(offline.WithAPIKey("k"))
	defer ok.Close()
	noModels := httptest.NewServer(http.NotFoundHandler())
	defer noModels.Close()
	broken := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.WriteHeader(http.StatusBadGateway)
	}))
	defer broken.Close()
	port, err := devserver.FreePort()
	require.NoError(t, err)

	cases := []struct {
		name, url, key, wantErr string
	}{
		{name: "answers", url: ok.URL(), key: "k"},
		{name: "refuses the key", url: ok.URL(), key: "bad", wantErr: "refused the API key"},
		{name: "no models endpoint", url: noModels.URL + "/v1"},
		{name: "server fault", url: broken.URL, wantErr: "502"},
		{name: "unreachable", url: "http://127.0.0.1:" + strconv.Itoa(port) + "/v1", wantErr: "cannot reach the model"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			err := checkEndpoint(context.Background(), tc.url, tc.key, slog.New(slog.DiscardHandler))
			if tc.wantErr == "" {
				require.NoError(t, err)
				return
			}
			require.ErrorContains(t, err, tc.wantErr)
		})
	}
}

func TestConfigPhasesAreTheActivitiesPhases(t *testing.T) {
	assert.ElementsMatch(t, []string{activities.PhaseClarify, activities.PhasePlan, activities.PhaseExecute,
		activities.PhaseAgent, activities.PhaseReflect, activities.PhaseSummarize}, config.Phases)
}

func TestRunHelpListsTheFlags(t *testing.T) {
	cleanEnv(t)
	var out syncBuffer
	err := run(context.Background(), []string{"--help"}, &out)
	require.ErrorIs(t, err, pflag.ErrHelp)
	for _, flag := range []string{"--address", "--task-queue", "--offline", "--workspace-root", "--llm-base-url"} {
		assert.Contains(t, out.String(), flag)
	}
}
