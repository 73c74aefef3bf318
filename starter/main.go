// Command planmode is the operator CLI of PlanMode runs: it starts plans,
// lists and shows them, answers what they wait for (selection,
// clarification, skip confirmation), edits, pauses, resumes, cancels and
// rolls them back, and watches their progress.
//
// Exit codes: 0 success, 1 any other failure, 2 Temporal cannot be
// reached, 3 no such plan, 4 the plan (or the CLI) rejected the input.
package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := newApp(os.Stdin, os.Stdout, os.Stderr).run(ctx, os.Args[1:])
	stop()
	os.Exit(code)
}
