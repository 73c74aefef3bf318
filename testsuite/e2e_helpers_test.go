package testsuite

import (
	"bytes"
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	sdkworker "go.temporal.io/sdk/worker"

	"github.com/planmode/planmode/internal/config"
	"github.com/planmode/planmode/internal/devserver"
	"github.com/planmode/planmode/llm"
	"github.com/planmode/planmode/llm/offline"
	"github.com/planmode/planmode/starter/cli"
	"github.com/planmode/planmode/worker/planworker"
)

// planWorker is a PlanMode worker on its own task queue, with the offline
// model on loopback and a copy of the demo workspace.
type planWorker struct {
	srv       *devserver.DevServer
	queue     string
	workspace string
	llm       *offline.Server
}

// startPlanWorker starts a worker wired as the planmode worker wires it,
// stopped when t ends.
func startPlanWorker(t *testing.T) *planWorker {
	t.Helper()
	srv := StartDevServer(t)
	pw := &planWorker{srv: srv, queue: TaskQueue(t), workspace: copyDemoWorkspace(t), llm: offline.New()}
	t.Cleanup(pw.llm.Close)

	w := sdkworker.New(srv.Client, pw.queue, sdkworker.Options{})
	registerOffline(w, pw.llm, pw.workspace, t.TempDir())
	require.NoError(t, w.Start())
	t.Cleanup(w.Stop)
	return pw
}

// registerOffline registers on w what the planmode worker registers, with
// the default tools confined to root, model as the offline model and the
// workspace snapshots kept in snapshots.
func registerOffline(w sdkworker.Registry, model *offline.Server, root, snapshots string) {
	cfg := config.Config{
		Workspace: config.Workspace{Root: root},
		Tools:     config.Tools{AllowCommands: config.DefaultAllowCommands(), AllowTests: true},
	}
	a := planworker.NewActivities(cfg, llm.Config{BaseURL: model.URL(), Model: offline.DefaultModel}, true)
	a.Workspace.SnapshotDir = snapshots
	planworker.Register(w, a)
}

// copyDemoWorkspace copies demo/workspace into a fresh folder.
func copyDemoWorkspace(t *testing.T) string {
	t.Helper()
	dst := filepath.Join(t.TempDir(), "workspace")
	require.NoError(t, devserver.CopyDemoWorkspace(dst))
	return dst
}

// cliResult is what one CLI invocation printed and returned.
type cliResult struct {
	code        int
	out, errOut string
}

// cli runs the planmode CLI in-process against the worker's server and
// task queue, with no terminal and no PLANMODE_ variables.
func (pw *planWorker) cli(t *testing.T, args ...string) cliResult {
	t.Helper()
	return pw.cliWith(t, false, "", args...)
}

// cliWith is cli with or without a person at a (pretend) terminal who
// types stdin.
func (pw *planWorker) cliWith(t *testing.T, interactive bool, stdin string, args ...string) cliResult {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	var out, errOut bytes.Buffer
	args = append(args, "--address", pw.srv.Address(), "--namespace", pw.srv.Namespace, "--task-queue", pw.queue)
	code := cli.Run(ctx, args, strings.NewReader(stdin), &out, &errOut,
		cli.WithInteractive(interactive), cli.WithPollInterval(50*time.Millisecond))
	return cliResult{code: code, out: out.String(), errOut: errOut.String()}
}

// cliJSON runs the CLI with --output json, requires success and decodes
// the answer into v.
func (pw *planWorker) cliJSON(t *testing.T, v any, args ...string) {
	t.Helper()
	res := pw.cli(t, append(args, "--output", "json")...)
	require.Equal(t, 0, res.code, "planmode %v: %s", args, res.errOut)
	require.NoError(t, json.Unmarshal([]byte(res.out), v), res.out)
}

// isolate keeps the environment and the current folder from configuring
// the CLI.
func isolate(t *testing.T) {
	t.Chdir(t.TempDir())
	t.Setenv(config.ConfigEnv, "")
	for _, k := range []string{config.KeyAddress, config.KeyNamespace, config.KeyTaskQueue, config.KeyTemporalAPIKey} {
		t.Setenv(config.EnvName(k), "")
	}
}
