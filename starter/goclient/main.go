// Command goclient drives one plan through planmode's typed Go client: it
// starts the plan and reads its options in one call, holds it with a
// fire-and-forget signal, selects an option, resumes it with an update,
// approves the skips it asks about and prints the result.
package main

import (
	"context"
	"flag"
	"fmt"
	"log"
	"os"
	"os/signal"
	"time"

	"go.temporal.io/sdk/client"

	"github.com/planmode/planmode/plan"
	"github.com/planmode/planmode/planclient"
	"github.com/planmode/planmode/signals"
)

func main() {
	address := flag.String("address", "127.0.0.1:7233", "Temporal frontend host:port")
	namespace := flag.String("namespace", "default", "Temporal namespace")
	taskQueue := flag.String("task-queue", signals.DefaultTaskQueue, "task queue the planmode workers poll")
	id := flag.String("id", "plan-shop-jwt", "workflow id of the plan")
	flag.Parse()

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	err := run(ctx, client.Options{HostPort: *address, Namespace: *namespace}, *taskQueue, *id)
	stop()
	if err != nil {
		log.Fatal(err)
	}
}

func run(ctx context.Context, opts client.Options, taskQueue, id string) error {
	tc, err := client.Dial(opts)
	if err != nil {
		return fmt.Errorf("dial Temporal: %w", err)
	}
	defer tc.Close()
	pc := planclient.New(tc, planclient.WithTaskQueue(taskQueue))

	// Start a plan and wait for its options in one call (Update-with-Start).
	options, err := pc.StartAndGetOptions(ctx, id, signals.StartRequest{
		Goal:         "Add JWT authentication",
		Requirements: []string{"email/password login"},
		Workspace:    "shop", // a folder under the workers' workspace.root
		Selection:    signals.SelectionPolicy{Mode: signals.SelectManual, Timeout: plan.Duration(24 * time.Hour)},
	})
	if err != nil {
		return fmt.Errorf("start: %w", err)
	}
	for _, o := range options.Options {
		fmt.Println(o.ID, o.Title, o.ID == options.RecommendedID)
	}

	// Hold the plan before it executes. A signal is fire-and-forget: it
	// answers nothing, so a query shows whether it took effect.
	if err := signals.Pause.Signal(ctx, pc.Temporal(), id, signals.ControlRequest{Reason: "review first"}); err != nil {
		return fmt.Errorf("pause: %w", err)
	}
	if err := waitFor(ctx, func() (bool, error) {
		p, err := pc.Progress(ctx, id)
		return p.Paused, err
	}); err != nil {
		return fmt.Errorf("wait for the pause: %w", err)
	}

	// Pick one; the answer is the selected option, or the workflow's
	// refusal (errors.Is(err, signals.ErrRejected)).
	sel, err := pc.Select(ctx, id, signals.SelectOptionRequest{Rank: 1, Feedback: "keep it small"})
	if err != nil {
		return fmt.Errorf("select: %w", err)
	}
	fmt.Println("selected", sel.Option.ID, "with", len(sel.Option.Plan.Steps), "steps")
	if _, err := pc.Resume(ctx, id, signals.ControlRequest{Reason: "reviewed"}); err != nil {
		return fmt.Errorf("resume: %w", err)
	}

	// Follow it and answer what it asks until it ends.
	if err := waitFor(ctx, func() (bool, error) {
		p, err := pc.Progress(ctx, id) // phase, current step, percent, tokens, cost
		if err != nil || p.Phase.Terminal() {
			return true, err
		}
		pend, err := pc.Pending(ctx, id) // selection, questions, skip confirmations
		for _, s := range pend.SkipConfirmations {
			req := signals.ConfirmSkipRequest{RequestID: s.RequestID, Approve: true}
			if _, err := pc.ConfirmSkip(ctx, id, req); err != nil {
				return true, err
			}
		}
		return false, err
	}); err != nil {
		return fmt.Errorf("follow the plan: %w", err)
	}

	res, err := pc.Result(ctx, id) // res.Status is completed, failed, cancelled or answered
	if err != nil {
		return err
	}
	fmt.Println(res.Status, res.Metrics.StepsCompleted, "steps completed")
	return nil
}

// waitFor calls done every half second until it reports true or fails, or
// ctx ends.
func waitFor(ctx context.Context, done func() (bool, error)) error {
	tick := time.NewTicker(500 * time.Millisecond)
	defer tick.Stop()
	for {
		ok, err := done()
		if ok || err != nil {
			return err
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-tick.C:
		}
	}
}
