// Command demo shows planmode end to end on one machine, with nothing but
// Go: it starts a Temporal dev server, builds and starts the worker with
// the offline model on a copy of demo/workspace, and drives a plan with
// the planmode CLI — start, watch, show, select, watch, result — printing
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

	"github.com/planmode/planmode/testsuite"
)

func main() {
	keep := flag.Bool("keep", false, "keep the server and worker running after the demo, until Ctrl-C, to browse the Web UI")
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
	root, err := testsuite.RepoRoot()
	if err != nil {
		return err
	}
	cache := filepath.Join(root, ".cache", "demo")
	if err := os.RemoveAll(cache); err != nil {
		return fmt.Errorf("clean %s: %w", cache, err)
	}
	workspace := filepath.Join(cache, "workspace")
	if err := copyWorkspace(filepath.Join(root, "demo", "workspace"), workspace); err != nil {
		return err
	}

	fmt.Fprintln(out, "Starting a Temporal dev server…")
	srv, err := testsuite.Start(ctx, testsuite.Options{})
	if err != nil {
		return err
	}
	defer srv.Stop()
	fmt.Fprintf(out, "Temporal at %s, Web UI at %s\n", srv.Address(), srv.UIAddress())

	w, err := startWorker(ctx, root, cache, srv.Address(), workspace)
	if err != nil {
		return err
	}
	defer w.stop()
	fmt.Fprintf(out, "Worker started with the offline model on %s (log: %s)\n\n", workspace, w.logPath)

	env := []string{"PLANMODE_TEMPORAL_ADDRESS=" + srv.Address()}
	if err := scenario(ctx, out, env, workspace); err != nil {
		return err
	}
	fmt.Fprintf(out, "\nThe workspace the plan worked on: %s\n", workspace)
	if keep {
		fmt.Fprintf(out, "Browse the run at %s; press Ctrl-C to stop.\n", srv.UIAddress())
		<-ctx.Done()
	}
	return nil
}

// copyWorkspace copies the sample workspace, writable.
func copyWorkspace(src, dst string) error {
	if err := os.CopyFS(dst, os.DirFS(src)); err != nil {
		return fmt.Errorf("copy %s: %w", src, err)
	}
	return filepath.Walk(dst, func(p string, fi os.FileInfo, err error) error {
		if err != nil || fi.IsDir() {
			return err
		}
		return os.Chmod(p, 0o644)
	})
}

// waitTimeout bounds each step of the scenario.
const waitTimeout = 2 * time.Minute
