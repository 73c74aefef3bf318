package cli

import (
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/planmode/planmode/signals"
)

func newResultCmd(d *deps) *cobra.Command {
	return &cobra.Command{
		Use:   "result <id>",
		Short: "Wait for a plan to end and print its result; exit 5 when it failed or was cancelled",
		Example: `  planmode result plan-42
  planmode result plan-42 --output json`,
		Args: rejectArgs(cobra.ExactArgs(1)),
		RunE: func(cmd *cobra.Command, args []string) error {
			pc, err := d.plans(cmd.Context())
			if err != nil {
				return err
			}
			// The Result of a plan however it ended, following
			// continue-as-new; an error only for a plan that ended without
			// one (terminated, timed out, refused its request).
			res, err := pc.Result(cmd.Context(), args[0])
			if err != nil {
				return err
			}
			if err := d.printer().emit(res, func(w io.Writer) error { return renderResult(w, res) }); err != nil {
				return err
			}
			if res.Status == signals.StatusFailed || res.Status == signals.StatusCancelled {
				return &endedError{status: res.Status}
			}
			return nil
		},
	}
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
