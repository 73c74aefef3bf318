package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"syscall"
	"time"

	enumspb "go.temporal.io/api/enums/v1"
	historypb "go.temporal.io/api/history/v1"
	"go.temporal.io/sdk/client"
	sdklog "go.temporal.io/sdk/log"
	sdkworker "go.temporal.io/sdk/worker"
	"go.temporal.io/sdk/workflow"

	"github.com/planmode/planmode/signals"
	"github.com/planmode/planmode/workflows"
)

// minReplayCPU is how much CPU the replays of one plan length take at
// least, so a short plan is replayed often enough to measure.
const minReplayCPU = time.Second

// measureCPU reports the workflow-task CPU per step of plans of each
// length in sz.CPUSteps: the CPU the workflow code takes to replay every
// run of the plan's chain, over its steps. Replay runs the workflow code
// over the whole history at once, as a worker does, task by task, while
// the plan runs; it leaves out the server and the activities, so it is
// the orchestration's own cost. Flat from 10 to 1,000 steps means a step
// costs the same whatever the plan's length. The bare workflow's figure
// for the same plan is the floor.
func measureCPU(ctx context.Context, r *rig, sz sizes, rep *report) error {
	rp := sdkworker.NewWorkflowReplayer()
	rp.RegisterWorkflowWithOptions(workflows.PlanMode, workflow.RegisterOptions{Name: signals.WorkflowType})
	rp.RegisterWorkflowWithOptions(bareWorkflow, workflow.RegisterOptions{Name: bareWorkflowType})
	quiet := sdklog.NewStructuredLogger(slog.New(slog.NewTextHandler(io.Discard, nil)))
	for _, n := range sz.CPUSteps {
		pr, err := planOfLength(ctx, r, n)
		if err != nil {
			return err
		}
		pm, err := replayCPU(ctx, r.srv.Client, rp, quiet, pr.id, pr.firstRunID)
		if err != nil {
			return err
		}
		b, err := runBare(ctx, r.srv.Client, inProcessQueue, r.id(fmt.Sprintf("cpu-bare%d", n)), n)
		if err != nil {
			return err
		}
		bare, err := replayCPU(ctx, r.srv.Client, rp, quiet, b.id, b.firstRunID)
		if err != nil {
			return err
		}
		kase := fmt.Sprintf("%d steps", n)
		perStep := func(d time.Duration) float64 { return float64(d.Microseconds()) / float64(n) }
		rep.add(secCPU, kase, "planmode µs/step", perStep(pm.cpu), fmt.Sprintf("%d runs, %d replays; flat from 10 to 1,000 steps", pm.runs, pm.reps))
		rep.add(secCPU, kase, "bare µs/step", perStep(bare.cpu), fmt.Sprintf("%d replays", bare.reps))
		rep.add(secCPU, kase, "ratio", perStep(pm.cpu)/perStep(bare.cpu), "planmode ÷ bare")
		r.logf("cpu: %d steps, planmode %.0f µs/step, bare %.0f µs/step", n, perStep(pm.cpu), perStep(bare.cpu))
	}
	return nil
}

// replayed is the CPU one replay of a whole chain took, on average over
// reps replays, and how many runs the chain has.
type replayed struct {
	cpu        time.Duration
	runs, reps int
}

// replayCPU fetches every run of the chain of id and replays them all,
// again and again until minReplayCPU has passed (at least 3 times),
// returning the mean CPU of one replay of the chain. A replay that fails
// (the workflow code does not match the history) is an error.
func replayCPU(ctx context.Context, c client.Client, rp sdkworker.WorkflowReplayer, logger sdklog.Logger,
	id, firstRunID string) (replayed, error) {
	type run struct {
		h    *historypb.History
		opts sdkworker.ReplayWorkflowHistoryOptions
	}
	var runs []run
	for runID := firstRunID; runID != ""; {
		h, next, err := fetchRun(ctx, c, id, runID)
		if err != nil {
			return replayed{}, err
		}
		// The run's own ids: the workflow names children after them.
		runs = append(runs, run{h, sdkworker.ReplayWorkflowHistoryOptions{
			OriginalExecution: workflow.Execution{ID: id, RunID: runID}}})
		runID = next
	}
	var total time.Duration
	reps := 0
	for reps < 3 || total < minReplayCPU {
		before := processCPU()
		for _, x := range runs {
			if err := rp.ReplayWorkflowHistoryWithOptions(logger, x.h, x.opts); err != nil {
				return replayed{}, fmt.Errorf("replay %s: %w", id, err)
			}
		}
		total += processCPU() - before
		reps++
	}
	return replayed{cpu: total / time.Duration(reps), runs: len(runs), reps: reps}, nil
}

// fetchRun returns the whole history of one run and the run it continued
// as, "" when it is the last.
func fetchRun(ctx context.Context, c client.Client, id, runID string) (*historypb.History, string, error) {
	h := &historypb.History{}
	next := ""
	it := c.GetWorkflowHistory(ctx, id, runID, false, enumspb.HISTORY_EVENT_FILTER_TYPE_ALL_EVENT)
	for it.HasNext() {
		ev, err := it.Next()
		if err != nil {
			return nil, "", fmt.Errorf("history of %s/%s: %w", id, runID, err)
		}
		h.Events = append(h.Events, ev)
		if a := ev.GetWorkflowExecutionContinuedAsNewEventAttributes(); a != nil {
			next = a.GetNewExecutionRunId()
		}
	}
	return h, next, nil
}

// processCPU is the CPU this process has used, user and system.
func processCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
