package cli

import (
	"context"
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/planmode/planmode/signals"
)

func (a *app) resultCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "result <id>",
		Short: "Wait for a plan to end and print its result; exit 5 when it failed or was cancelled",
		Example: `  planmode result plan-42
  planmode result plan-42 --output json`,
		Args: rejectArgs(cobra.ExactArgs(1)),
		RunE: func(cmd *cobra.Command, args []string) error {
			res, err := a.result(cmd.Context(), args[0])
			if err != nil {
				return err
			}
			if err := a.emit(res, func(w io.Writer) error { return renderResult(w, res) }); err != nil {
				return err
			}
			if res.Status == signals.StatusFailed || res.Status == signals.StatusCancelled {
				return &endedError{status: res.Status}
			}
			return nil
		},
	}
}

// result waits for the plan's run (following continue-as-new) to end and
// answers its Result however it ended: a plan that failed or was cancelled
// ends Failed or Canceled with the Result in the error's details. It
// returns an error only for a plan that ended without a Result
// (terminated, timed out, refused its request).
func (a *app) result(ctx context.Context, id string) (signals.Result, error) {
	pc, err := a.plans(ctx)
	if err != nil {
		return signals.Result{}, err
	}
	return pc.Result(ctx, id)
}

// renderResult prints a Result: status, summary, metrics, usage and steps.
func renderResult(w io.Writer, r signals.Result) error {
	fmt.Fprintf(w, "Status: %s\n", r.Status)
	if r.SelectedOptionID != "" {
		fmt.Fprintf(w, "Option: %s\n", r.SelectedOptionID)
	}
	if r.Error != "" {
		fmt.Fprintf(w, "Error: %s\n", r.Error)
	}
	if r.BudgetExceeded != "" {
		fmt.Fprintf(w, "Budget exceeded: %s\n", r.BudgetExceeded)
	}
	m := r.Metrics
	fmt.Fprintf(w, "Steps: %d completed, %d failed, %d skipped", m.StepsCompleted, m.StepsFailed, m.StepsSkipped)
	if m.MaxConcurrent > 1 {
		fmt.Fprintf(w, "; up to %d at once", m.MaxConcurrent)
	}
	fmt.Fprintln(w)
	fmt.Fprintf(w, "Files: %d created, %d modified, %d deleted, %d lines changed; %d commands run\n",
		m.FilesCreated, m.FilesModified, m.FilesDeleted, m.LinesChanged, m.CommandsRun)
	fmt.Fprintf(w, "Tokens: %d  Cost: $%.4f", r.Tokens, r.CostUSD)
	if r.Offline {
		fmt.Fprint(w, " (offline model)")
	}
	fmt.Fprintln(w)
	if r.Summary != "" {
		fmt.Fprintf(w, "\n%s\n", r.Summary)
	}
	if r.Plan != nil && len(r.Plan.Steps) > 0 {
		fmt.Fprintln(w)
		return renderSteps(w, r.Plan.Steps)
	}
	return nil
}
