// Command planmode-worker runs the PlanMode workflow and its activities:
// configuration (viper) → logger → Temporal client → model (a provider, or
// the offline model on loopback) → activities → worker, until SIGINT or
// SIGTERM, when it stops gracefully.
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"

	"github.com/spf13/pflag"
	sdkworker "go.temporal.io/sdk/worker"

	"github.com/planmode/planmode/internal/config"
	"github.com/planmode/planmode/signals"
	"github.com/planmode/planmode/worker/planworker"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	err := run(ctx, os.Args[1:], os.Stdout)
	stop()
	if err != nil && !errors.Is(err, pflag.ErrHelp) {
		fmt.Fprintln(os.Stderr, "planmode-worker:", err)
		os.Exit(1)
	}
}

// run is the whole worker: it returns nil after a graceful stop when ctx
// ends, and an error that says what to fix when the configuration is
// invalid, Temporal or the model cannot be reached, or the worker fails.
// Logs go to stdout.
func run(ctx context.Context, args []string, stdout io.Writer) error {
	fs := pflag.NewFlagSet("planmode-worker", pflag.ContinueOnError)
	fs.SetOutput(stdout)
	config.AddTemporalFlags(fs)
	config.AddWorkerFlags(fs)
	if err := fs.Parse(args); err != nil {
		return err
	}
	cfg, err := config.FromFlags(fs)
	if err != nil {
		return err
	}
	if err := checkWorkspace(cfg.Workspace.Root); err != nil {
		return err
	}
	logger := cfg.Log.NewLogger(stdout)
	if filepath.Dir(cfg.Workspace.Root) == cfg.Workspace.Root {
		// The root of the file system confines nothing.
		logger.Warn("workspace.root is the file system's root: the tools can reach every file the worker can; set workspace.root to the folder plans work in",
			"workspace", cfg.Workspace.Root)
	}

	c, err := dial(ctx, cfg.Temporal, logger)
	if err != nil {
		return err
	}
	defer c.Close()
	// Plans may be started by any client, so the worker makes sure the
	// namespace has the search attributes its workflows upsert.
	if err := signals.EnsureSearchAttributes(ctx, c, cfg.Temporal.Namespace); err != nil {
		logger.Warn("search attributes not registered; plans fail until an operator adds them", "error", err)
	}

	model, err := startModel(ctx, cfg.LLM, logger)
	if err != nil {
		return err
	}
	defer model.close()

	w := sdkworker.New(c, cfg.Temporal.TaskQueue, sdkworker.Options{
		MaxConcurrentActivityExecutionSize:     cfg.Worker.MaxConcurrentActivities,
		MaxConcurrentWorkflowTaskExecutionSize: cfg.Worker.MaxConcurrentWorkflowTasks,
		StickyScheduleToStartTimeout:           cfg.Worker.StickyTimeout,
	})
	planworker.Register(w, planworker.NewActivities(cfg, model.cfg, model.offline))
	if err := w.Start(); err != nil {
		return fmt.Errorf("start worker on task queue %s: %w", cfg.Temporal.TaskQueue, err)
	}
	logger.Info("worker started", "address", cfg.Temporal.Address, "namespace", cfg.Temporal.Namespace,
		"taskQueue", cfg.Temporal.TaskQueue, "workspace", cfg.Workspace.Root, "model", model.cfg.Model, "offline", model.offline,
		"outputs", cfg.Outputs.Dir)
	<-ctx.Done()
	logger.Info("stopping worker")
	w.Stop()
	return nil
}

// checkWorkspace makes sure the tools have a folder to work in.
func checkWorkspace(root string) error {
	fi, err := os.Stat(root)
	if err != nil {
		return fmt.Errorf("workspace.root: %w", err)
	}
	if !fi.IsDir() {
		return fmt.Errorf("workspace.root %s is not a folder", root)
	}
	return nil
}
