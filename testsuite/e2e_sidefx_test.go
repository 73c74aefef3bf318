package testsuite

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/temporal"

	"github.com/planmode/planmode/internal/config"
	"github.com/planmode/planmode/internal/devserver"
	"github.com/planmode/planmode/plan"
	"github.com/planmode/planmode/planclient"
	"github.com/planmode/planmode/signals"
)

// sideFxPlans is how many plans each side-effect scenario runs at once.
// The scenarios do not run in parallel with other tests: each plan runs
// the demo's tests, built from scratch in the sandbox, and ten at once
// take the machine.
const sideFxPlans = 10

// sideFxMakefile appends a start and an end line to one log, with a
// pause between them, as a build step that logs what it does would.
const sideFxMakefile = "sidefx:\n\techo \"$(STEP) start\" >> sidefx.log\n\tsleep 1\n\techo \"$(STEP) end\" >> sidefx.log\n"

// sideFxSteps are the steps added to each plan: m1 after s1, m2 after s3,
// m3 after s5, so that m2 runs beside the tests and m3 may run beside m2.
func sideFxSteps() []plan.Step {
	var out []plan.Step
	for i, after := range []string{"s1", "s3", "s5"} {
		id := fmt.Sprintf("m%d", i+1)
		out = append(out, plan.Step{ID: id, Title: "make sidefx " + id, Action: plan.ActionTool, DependsOn: []string{after},
			Config: plan.StepConfig{Tool: &plan.ToolConfig{Name: plan.ToolRunCommand,
				Params: map[string]any{"command": "make", "args": []any{"-s", "sidefx", "STEP=" + id}}}}})
	}
	return out
}

// sideFxWorkspaces makes n copies of the demo workspace with the
// Makefile under root and returns their paths.
func sideFxWorkspaces(t *testing.T, root string, n int) []string {
	t.Helper()
	require.True(t, filepath.IsAbs(root), "the workspace root %q is a folder of the test's", root)
	var out []string
	for i := range n {
		ws := filepath.Join(root, fmt.Sprintf("ws-%d", i))
		require.NoError(t, devserver.CopyDemoWorkspace(ws))
		require.NoError(t, os.WriteFile(filepath.Join(ws, "Makefile"), []byte(sideFxMakefile), 0o644))
		out = append(out, ws)
	}
	return out
}

// startSideFxPlans starts a plan from the feature template with auto
// selection on each workspace, and adds the make steps to each with
// edit-plan as soon as it takes edits. It returns the plans' ids.
func startSideFxPlans(ctx context.Context, t *testing.T, pc *planclient.Client, prefix string, wss []string) []string {
	t.Helper()
	var ids []string
	for i, ws := range wss {
		id := fmt.Sprintf("%s-%d", prefix, i)
		_, err := pc.Start(ctx, id, signals.StartRequest{Goal: "Add a percentage discount to the cart total",
			Template: plan.TemplateFeature, Workspace: ws, Selection: signals.SelectionPolicy{Mode: signals.SelectAuto}})
		require.NoError(t, err)
		ids = append(ids, id)
	}
	for _, id := range ids {
		var edits []plan.Edit
		for _, s := range sideFxSteps() {
			edits = append(edits, plan.Edit{Op: plan.OpAppend, Step: &s})
		}
		var last error
		require.Eventually(t, func() bool {
			_, last = pc.Edit(ctx, id, signals.EditPlanRequest{Edits: edits, Reason: "log what the build does"})
			var app *temporal.ApplicationError
			if errors.As(last, &app) && app.Type() == signals.ErrorTypeWrongPhase {
				return false // still planning: the plan takes edits once it is chosen
			}
			require.NoError(t, last, "edit %s", id)
			return true
		}, loadedWait, 50*time.Millisecond, "plan %s takes the edit: %v", id, last)
	}
	return ids
}

// requireSideFx waits for every plan and checks that each completed and
// that its workspace's log holds each make step's start and end line
// exactly once, as do the plan's recorded files.
func requireSideFx(ctx context.Context, t *testing.T, pc *planclient.Client, ids, wss []string, logs func() string) {
	t.Helper()
	reran := 0
	for i, id := range ids {
		res, err := pc.Result(ctx, id)
		require.NoError(t, err, "plan %s; worker output:\n%s", id, logs())
		require.Equal(t, signals.StatusCompleted, res.Status, "plan %s: %s", id, res.Error)
		data, err := os.ReadFile(filepath.Join(wss[i], "sidefx.log"))
		require.NoError(t, err, "plan %s", id)
		for _, s := range sideFxSteps() {
			for _, line := range []string{s.ID + " start\n", s.ID + " end\n"} {
				assert.Equal(t, 1, strings.Count(string(data), line), "plan %s: %q once in\n%s", id, line, data)
			}
			for _, ps := range res.Plan.Steps {
				if ps.ID == s.ID {
					require.Equal(t, plan.StepCompleted, ps.Status, "plan %s step %s: %s", id, ps.ID, ps.Note)
					if len(ps.Result.Clashes) > 0 {
						reran++
					}
				}
			}
		}
	}
	t.Logf("%d plans completed; %d make steps ran again after a clash", len(ids), reran)
}

// TestStepsAppendingToOneLogSideBySideAllComplete is the scenario of ten
// plans from the feature template, each with three make steps that
// append to one log, two of which may run side by side: every plan
// completes and every step's lines are in its log once.
func TestStepsAppendingToOneLogSideBySideAllComplete(t *testing.T) {
	srv, bin, env, queue, _ := workerRig(t, map[string]string{config.KeyOfflineLatency: offlineLatency})
	root := envValue(env, config.KeyWorkspaceRoot)
	w := startWorkerProcess(t, bin, env)
	ctx, cancel := testContext(t)
	defer cancel()
	pc := planclient.New(srv.Client, planclient.WithTaskQueue(queue))
	wss := sideFxWorkspaces(t, root, sideFxPlans)
	ids := startSideFxPlans(ctx, t, pc, "plan-sidefx-"+queue, wss)
	requireSideFx(ctx, t, pc, ids, wss, w.out.String)
}

// TestStepsAppendingToOneLogSurviveAWorkerKillAndAServerRestart runs the
// ten plans on a dev server of its own and, once some make steps have
// run, kills the worker with SIGKILL and stops the server; the server
// starts again on the same state and address, a new worker process
// starts, and every plan completes, each log whole.
func TestStepsAppendingToOneLogSurviveAWorkerKillAndAServerRestart(t *testing.T) {
	ctx, cancel := testContext(t)
	defer cancel()
	port, err := devserver.FreePort()
	require.NoError(t, err)
	opts := devserver.Config{Address: fmt.Sprintf("127.0.0.1:%d", port), DBFile: filepath.Join(t.TempDir(), "temporal.db")}
	srv, err := devserver.Start(ctx, opts)
	require.NoError(t, err)
	t.Cleanup(func() { _ = srv.Stop() })
	bin, queue := buildWorker(t), TaskQueue(t)
	root := filepath.Join(t.TempDir(), "root")
	require.NoError(t, os.Mkdir(root, 0o755))
	env := workerEnv(t, map[string]string{config.KeyAddress: srv.Address(), config.KeyNamespace: srv.Namespace,
		config.KeyTaskQueue: queue, config.KeyWorkspaceRoot: root, config.KeyLLMOffline: "true",
		config.KeyLogLevel: "info", config.KeyOfflineLatency: offlineLatency})
	first := startWorkerProcess(t, bin, env)
	wss := sideFxWorkspaces(t, root, sideFxPlans)
	pc := planclient.New(srv.Client, planclient.WithTaskQueue(queue))
	ids := startSideFxPlans(ctx, t, pc, "plan-sidefx-restart", wss)
	awaitSideFxStarted(ctx, t, pc, ids)

	first.kill()
	require.True(t, errKilled(first.err), "the first worker died of SIGKILL: %v", first.err)
	require.NoError(t, srv.Stop())
	again, err := devserver.Start(ctx, opts)
	require.NoError(t, err, "the dev server starts again on its state")
	t.Cleanup(func() { _ = again.Stop() })
	second := startWorkerProcess(t, bin, env)
	requireSideFx(ctx, t, planclient.New(again.Client, planclient.WithTaskQueue(queue)), ids, wss, second.out.String)
}

// awaitSideFxStarted waits until a make step of some plan completed:
// the plans are midway.
func awaitSideFxStarted(ctx context.Context, t *testing.T, pc *planclient.Client, ids []string) {
	t.Helper()
	require.Eventually(t, func() bool {
		for _, id := range ids {
			v, err := pc.Plan(ctx, id)
			if err != nil || v.Plan == nil {
				continue
			}
			for _, s := range v.Plan.Steps {
				if strings.HasPrefix(s.ID, "m") && s.Status == plan.StepCompleted {
					return true
				}
			}
		}
		return ctx.Err() != nil
	}, loadedWait, 100*time.Millisecond, "a make step ran")
	require.NoError(t, ctx.Err())
}
