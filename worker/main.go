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
	"log/slog"
	"os"
	"os/signal"
	"syscall"

	"github.com/spf13/pflag"
	sdkworker "go.temporal.io/sdk/worker"

	"github.com/planmode/planmode/internal/config"
	"github.com/planmode/planmode/internal/version"
	"github.com/planmode/planmode/planclient"
	"github.com/planmode/planmode/signals"
	"github.com/planmode/planmode/tools"
	"github.com/planmode/planmode/worker/planworker"
)

func main() {
	sealInheritedFiles()
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
	showVersion := fs.Bool("version", false, "print the version, the commit and the Temporal Go SDK, and exit")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *showVersion {
		_, err := fmt.Fprintln(stdout, version.String("planmode-worker"))
		return err
	}
	cfg, err := config.FromFlags(fs)
	if err != nil {
		return err
	}
	if err := checkWorkspace(cfg); err != nil {
		return err
	}
	promptSet, err := planworker.LoadPrompts(cfg)
	if err != nil {
		return err
	}
	logger := cfg.Log.NewLogger(stdout)
	checkSandbox(cfg, logger)

	opts, err := cfg.ClientConfig(logger)
	if err != nil {
		return err
	}
	ops, err := startOps(ctx, cfg, &opts, logger)
	if err != nil {
		return err
	}
	defer ops.close(ctx, logger)
	c, err := dial(ctx, cfg.Temporal, opts)
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

	files, err := planworker.Files(cfg.Workspace)
	if err != nil {
		return err
	}
	w := sdkworker.New(c, cfg.Temporal.TaskQueue, workerSettings(cfg.Worker, sdkworker.SetStickyWorkflowCacheSize))
	acts := planworker.NewActivities(cfg, model.cfg, model.offline)
	acts.Files = files
	acts.Prompts = promptSet
	// MCP servers are connected before the worker polls, so the first
	// plan already sees their tools; one that fails is logged and left out.
	acts.MCP = planworker.StartMCP(ctx, cfg, logger)
	defer func() {
		if err := acts.MCP.Close(); err != nil {
			logger.Warn("MCP servers did not stop cleanly", "error", err)
		}
	}()
	planworker.Register(w, acts)
	defer startPruning(ctx, pruner{root: acts.Workspace, snapshotRetention: cfg.Workspace.SnapshotRetention,
		files: acts.Files, planState: planclient.PlanState(c),
		outputs: acts.Outputs, outputsRetention: cfg.Outputs.Retention, logger: logger})()
	if err := w.Start(); err != nil {
		return fmt.Errorf("start worker on task queue %s: %w", cfg.Temporal.TaskQueue, err)
	}
	deployment := settleDeployment(ctx, c, cfg, logger)
	logger.Info("worker started", append([]any{"version", version.Version(), "commit", version.Commit(), "sdk", version.SDK(),
		"address", cfg.Temporal.Address, "namespace", cfg.Temporal.Namespace, "taskQueue", cfg.Temporal.TaskQueue, "workspace", cfg.Workspace.Root, "model", model.cfg.Model, "offline", model.offline,
		"outputs", cfg.Outputs.Dir, "metrics", ops.endpoint.Addr(), "encrypted", cfg.Codec.Enabled(),
		"stickyCacheSize", cfg.Worker.StickyCacheSize, "mcpTools", len(acts.MCP.Catalogue().Tools)}, deployment...)...)
	ops.started(c)
	<-ctx.Done()
	logger.Info("stopping worker")
	ops.stopping()
	w.Stop()
	return nil
}

// checkSandbox says how the plans' commands are isolated. Without a
// working sandbox the worker still runs (plans that run no command work),
// but every command is refused until one is installed; with
// tools.sandbox: none it warns loudly, since commands then run as the
// worker with everything it can see.
func checkSandbox(cfg config.Config, logger *slog.Logger) {
	sbx, err := tools.DetectCommandSandbox(planworker.ToolsConfig(cfg.Tools))
	switch {
	case err != nil:
		logger.Error("no command sandbox: plans' commands are refused until one works", "error", err)
	case !sbx.Isolated():
		logger.Warn("COMMANDS ARE NOT ISOLATED (tools.sandbox: none): a plan's commands can read the worker's files, environment and secrets and reach the network; use it only on a disposable machine",
			"sandbox", sbx.String())
	default:
		logger.Info("commands run isolated", "sandbox", sbx.String())
	}
}
