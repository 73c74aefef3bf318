package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/planmode/planmode/starter/cli"
)

// demoPlanID is the workflow id of the demo's plan.
const demoPlanID = "plan-demo"

// demoWorkspace is the folder under the worker's workspace root the demo
// plan works in.
const demoWorkspace = "shop"

// scenario drives one plan through the CLI as an operator would, in
// workspace (a folder under the worker's workspace root).
func scenario(ctx context.Context, out io.Writer, env []string, workspace string) error {
	for _, kv := range env {
		k, v, _ := strings.Cut(kv, "=")
		if err := os.Setenv(k, v); err != nil {
			return fmt.Errorf("set %s: %w", k, err)
		}
	}
	id := demoPlanID
	steps := [][]string{
		{"start", "Add a percentage discount to the cart total", "--requirement", "keep the tests green",
			"--workspace", workspace, "--id", id},
		{"watch", id},
		{"show", id},
		{"select", id, "--rank", "1", "--feedback", "looks good"},
		{"watch", id, "--follow"},
		{"result", id},
		{"list"},
	}
	for _, args := range steps {
		fmt.Fprintf(out, "$ planmode %s\n", quoteArgs(args))
		ctx, cancel := context.WithTimeout(ctx, waitTimeout)
		code := cli.Run(ctx, args, strings.NewReader(""), out, os.Stderr, cli.WithInteractive(false), cli.WithPollInterval(200*time.Millisecond))
		cancel()
		if code != 0 {
			return fmt.Errorf("planmode %s exited with %d", args[0], code)
		}
		fmt.Fprintln(out)
	}
	return nil
}

// quoteArgs prints args as a shell would take them.
func quoteArgs(args []string) string {
	q := make([]string, len(args))
	for i, a := range args {
		if strings.ContainsAny(a, " \"'") {
			a = "\"" + strings.ReplaceAll(a, "\"", "\\\"") + "\""
		}
		q[i] = a
	}
	return strings.Join(q, " ")
}
