package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sync/atomic"
	"time"

	sdkworker "go.temporal.io/sdk/worker"
	"go.temporal.io/sdk/workflow"

	"github.com/planmode/planmode/internal/config"
	"github.com/planmode/planmode/internal/devserver"
	"github.com/planmode/planmode/llm"
	"github.com/planmode/planmode/llm/offline"
	"github.com/planmode/planmode/planclient"
	"github.com/planmode/planmode/worker/planworker"
)

// inProcessQueue is the task queue of the worker in the bench's process;
// worker processes get queues of their own.
const inProcessQueue = "bench-inprocess"

// rig is what every section shares: the dev server, the offline model and
// a worker in this process serving both PlanMode and the bare workflow on
// one task queue, so both run under the same conditions.
type rig struct {
	srv   *devserver.DevServer
	model *offline.Server
	pc    *planclient.Client
	w     sdkworker.Worker
	dir   string
	keep  bool
	logw  io.Writer
	start time.Time
	seq   atomic.Int64
	// workerBin is bin/planmode-worker, built on first use.
	workerBin string
	// runs keeps the plan runs of history for tokens, by length.
	runs map[int]planRun
	// srvLog is the dev server's log, its refusals of updates counted.
	srvLog *serverLog
}

// startRig starts the dev server, the model and the in-process worker,
// with a work folder that stop removes unless keep.
func startRig(ctx context.Context, keep bool, logw io.Writer) (*rig, error) {
	dir, err := os.MkdirTemp("", "planmode-bench-")
	if err != nil {
		return nil, err
	}
	r := &rig{dir: dir, keep: keep, logw: logw, start: time.Now(), runs: map[int]planRun{}}
	r.logf("starting a Temporal dev server")
	r.srvLog = &serverLog{w: os.Stderr}
	if r.srv, err = devserver.Start(ctx, devserver.Config{Stderr: r.srvLog}); err != nil {
		os.RemoveAll(dir)
		return nil, err
	}
	r.model = offline.New()
	// The same process-wide cache bound as the worker's default, so the
	// in-process worker holds what a worker process would.
	sdkworker.SetStickyWorkflowCacheSize(config.DefaultStickyCacheSize)
	r.w = sdkworker.New(r.srv.Client, inProcessQueue, sdkworker.Options{})
	root := filepath.Join(dir, "workspace")
	if err := os.MkdirAll(root, 0o755); err != nil {
		r.stop()
		return nil, err
	}
	cfg := config.Config{Workspace: config.Workspace{Root: root},
		Tools: config.Tools{AllowCommands: config.DefaultAllowCommands(), AllowTests: true}}
	acts := planworker.NewActivities(cfg, llm.Config{BaseURL: r.model.URL(), Model: offline.DefaultModel}, true)
	acts.Workspace.SnapshotDir = filepath.Join(dir, "snapshots")
	planworker.Register(r.w, acts)
	r.w.RegisterWorkflowWithOptions(bareWorkflow, workflow.RegisterOptions{Name: bareWorkflowType})
	if err := r.w.Start(); err != nil {
		r.stop()
		return nil, fmt.Errorf("start the in-process worker: %w", err)
	}
	r.pc = planclient.New(r.srv.Client, planclient.WithTaskQueue(inProcessQueue))
	r.logf("dev server at %s, worker on %s", r.srv.Address(), inProcessQueue)
	return r, nil
}

// stop ends the worker, the model and the server and removes the files.
func (r *rig) stop() {
	if r.w != nil {
		r.w.Stop()
	}
	if r.model != nil {
		r.model.Close()
	}
	_ = r.srv.Stop()
	if r.keep {
		r.logf("work folder kept: %s", r.dir)
		return
	}
	os.RemoveAll(r.dir)
}

// id returns a workflow id unique in this run.
func (r *rig) id(kind string) string {
	return fmt.Sprintf("bench-%s-%d", kind, r.seq.Add(1))
}

// logf prints a progress line with the time since the start.
func (r *rig) logf(format string, args ...any) {
	fmt.Fprintf(r.logw, "[%6.1fs] %s\n", time.Since(r.start).Seconds(), fmt.Sprintf(format, args...))
}
