// Command demo shows planmode end to end on one machine, with nothing but
// Go: it starts a Temporal dev server, builds and starts the worker with
// the offline model on a copy of demo/workspace, and drives a plan with
// the planmode CLI — start, watch, show, select, watch --follow (the plan's event log), result — printing
// each command as an operator would type it. `make demo` runs it.
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"
	"time"

	"github.com/planmode/planmode/internal/devserver"
	"golang.org/x/term"
)

func main() {
	// A person at a terminal gets time to browse the Web UI; a script gets
	// its exit.
	keep := flag.Bool("keep", term.IsTerminal(int(os.Stdin.Fd())), "keep the server and worker running after the demo, until Ctrl-C, to browse the Web UI (default when run from a terminal)")
	flag.Parse()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, os.Stdout, *keep); err != nil {
		fmt.Fprintln(os.Stderr, "demo:", err)
		stop()
		os.Exit(1)
	}
}

// run sets everything up, runs the scenario and tears it down.
func run(ctx context.Context, out io.Writer, keep bool) error {
	root, err := devserver.RepoRoot()
	if err != nil {
		return err
	}
	cache := filepath.Join(root, ".cache", "demo")
	if err := os.RemoveAll(cache); err != nil {
		return fmt.Errorf("clean %s: %w", cache, err)
	}
	// The worker's workspace root holds the plans' folders; the demo
	// plan works in one of them, shop, a copy of demo/workspace.
	wsRoot := filepath.Join(cache, "workspaces")
	workspace := filepath.Join(wsRoot, demoWorkspace)
	if err := devserver.CopyDemoWorkspace(workspace); err != nil {
		return err
	}

	// The server keeps its state beside the demo's files, so a run can be
	// looked at again with `make dev-server` after the demo ends.
	db := filepath.Join(cache, "temporal.db")
	fmt.Fprintln(out, "Starting a Temporal dev server…")
	srv, err := devserver.Start(ctx, devserver.Config{DBFile: db})
	if err != nil {
		return err
	}
	defer srv.Stop()
	fmt.Fprintf(out, "Temporal at %s (state in %s), Web UI at %s\n", srv.Address(), db, srv.UIAddress())

	w, err := startWorker(ctx, root, cache, srv.Address(), wsRoot)
	if err != nil {
		return err
	}
	defer w.stop()
	fmt.Fprintf(out, "Worker started with the offline model, workspace root %s (log: %s)\n\n", wsRoot, w.logPath)

	env := []string{"PLANMODE_TEMPORAL_ADDRESS=" + srv.Address()}
	if err := scenario(ctx, out, env, demoWorkspace); err != nil {
		return err
	}
	link := fmt.Sprintf("%s/namespaces/%s/workflows/%s", srv.UIAddress(), srv.Namespace, demoPlanID)
	fmt.Fprintf(out, "\nThe workspace the plan worked on: %s\n", workspace)
	fmt.Fprintf(out, "The plan in the Web UI: %s\n", link)
	if keep {
		fmt.Fprintln(out, "The server and worker keep running; press Ctrl-C to stop them.")
		<-ctx.Done()
	}
	return nil
}

// waitTimeout bounds each step of the scenario.
const waitTimeout = 2 * time.Minute
