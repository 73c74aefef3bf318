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
	"go.temporal.io/sdk/client"
	sdkworker "go.temporal.io/sdk/worker"

	"github.com/planmode/planmode/internal/config"
	"github.com/planmode/planmode/internal/devserver"
	"github.com/planmode/planmode/llm"
	"github.com/planmode/planmode/llm/offline"
	"github.com/planmode/planmode/starter/cli"
	"github.com/planmode/planmode/worker/planworker"
)

// planWorker is a PlanMode worker on its own task queue, with the offline
// model on loopback and a workspace root that holds a copy of the demo
// workspace (workspace, an absolute path inside root). Plans name the
// workspace: one that names none gets a folder of its own under root.
type planWorker struct {
	srv       *devserver.DevServer
	queue     string
	root      string
	workspace string
	llm       *offline.Server
	// codec is the worker's payload encryption, for what it derives from
	// the key (the PlanGoal digest); the client's converter encrypts.
	codec config.Codec
}

// newPlanWorker returns a planWorker on srv with model, a fresh queue and
// a fresh root with the demo workspace in it; nothing polls yet.
func newPlanWorker(t *testing.T, srv *devserver.DevServer, model *offline.Server) *planWorker {
	t.Helper()
	root, ws := copyDemoWorkspace(t)
	return &planWorker{srv: srv, queue: TaskQueue(t), root: root, workspace: ws, llm: model}
}

// startPlanWorker starts a worker wired as the planmode worker wires it,
// stopped when t ends.
func startPlanWorker(t *testing.T) *planWorker {
	t.Helper()
	srv := StartDevServer(t)
	pw := newPlanWorker(t, srv, offline.New())
	t.Cleanup(pw.llm.Close)
	pw.poll(t, srv.Client)
	return pw
}

// poll starts a worker of pw's queue on c, stopped when t ends.
func (pw *planWorker) poll(t *testing.T, c client.Client) {
	t.Helper()
	w := sdkworker.New(c, pw.queue, sdkworker.Options{MaxHeartbeatThrottleInterval: planworker.HeartbeatThrottle})
	registerOffline(w, pw.llm, pw.root, t.TempDir(), pw.codec)
	require.NoError(t, w.Start())
	t.Cleanup(w.Stop)
}

// registerOffline registers on w what the planmode worker registers, with
// the default tools confined to root, model as the offline model and the
// plans' files and snapshots kept under snapshots, and codec as the
// worker's codec setting.
func registerOffline(w sdkworker.Registry, model *offline.Server, root, snapshots string, codec config.Codec) {
	registerModel(w, llm.Config{BaseURL: model.URL(), Model: offline.DefaultModel}, root, snapshots, codec)
}

// registerModel is registerOffline with the model's configuration.
func registerModel(w sdkworker.Registry, model llm.Config, root, snapshots string, codec config.Codec) {
	cfg := config.Config{
		Codec:     codec,
		Workspace: config.Workspace{Root: root, Store: filepath.Join(snapshots, "store")},
		Tools:     config.Tools{AllowCommands: config.DefaultAllowCommands(), AllowTests: true},
	}
	a := planworker.NewActivities(cfg, model, true)
	a.Workspace.SnapshotDir = snapshots
	a.Files.StateDir = filepath.Join(snapshots, "state")
	planworker.Register(w, a)
}

// copyDemoWorkspace copies demo/workspace into the folder "workspace" of
// a fresh workspace root, and returns the root and that folder. The root
// itself is never a plan's workspace: it holds every plan's folder.
func copyDemoWorkspace(t *testing.T) (root, ws string) {
	t.Helper()
	root = filepath.Join(t.TempDir(), "root")
	ws = filepath.Join(root, "workspace")
	require.NoError(t, devserver.CopyDemoWorkspace(ws))
	return root, ws
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
	ctx, cancel := testContext(t)
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

// loadedWait bounds a wait for a condition an end-to-end test expects
// (require.Eventually): long enough for a 2-core machine running the whole
// suite at once, since the condition, not the time it took, is what the
// test asserts.
const loadedWait = 5 * time.Minute

// testContext returns the context an end-to-end test works in: it allows
// what a loaded machine takes (testWait), and ends half a minute before
// the test binary's own deadline (go test -timeout) when that comes first,
// so that a test that hangs fails with its name and its state rather than
// with the binary's panic.
func testContext(t *testing.T) (context.Context, context.CancelFunc) {
	end := time.Now().Add(testWait)
	if dl, ok := t.Deadline(); ok && dl.Add(-30*time.Second).Before(end) {
		end = dl.Add(-30 * time.Second)
	}
	return context.WithDeadline(context.Background(), end)
}

// testWait bounds one end-to-end test's work on a loaded machine.
const testWait = 15 * time.Minute
