package cli

import (
	"context"
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/planmode/planmode/signals"
)

// planState is everything show reports about a plan.
type planState struct {
	WorkflowID string              `json:"workflowId"`
	Progress   signals.Progress    `json:"progress"`
	Options    signals.OptionsView `json:"options"`
	Plan       signals.PlanView    `json:"plan"`
	Pending    signals.Pending     `json:"pending"`
}

func (a *app) showCmd() *cobra.Command {
	var export bool
	cmd := &cobra.Command{
		Use:   "show <id>",
		Short: "Show a plan: progress, options with their comparison, steps and what it waits for",
		Example: `  planmode show plan-42
  planmode show plan-42 --output json   # {"progress", "options", "plan", "pending"}`,
		Args: rejectArgs(cobra.ExactArgs(1)),
		RunE: func(cmd *cobra.Command, args []string) error {
			if export {
				return a.export(cmd.Context(), args[0])
			}
			st, err := a.state(cmd.Context(), args[0])
			if err != nil {
				return err
			}
			return a.emit(st, func(w io.Writer) error { return renderState(w, st) })
		},
	}
	cmd.Flags().BoolVar(&export, "export", false, "print only the plan's steps, in the format start --plan reads (as planmode export does)")
	return cmd
}

// state runs the four queries of a plan.
func (a *app) state(ctx context.Context, id string) (planState, error) {
	st := planState{WorkflowID: id}
	c, err := a.temporal(ctx)
	if err != nil {
		return st, err
	}
	if st.Progress, err = signals.ProgressQuery.Get(ctx, c, id); err != nil {
		return st, fmt.Errorf("plan %s: %w", id, err)
	}
	if st.Options, err = signals.OptionsQuery.Get(ctx, c, id); err != nil {
		return st, fmt.Errorf("plan %s: %w", id, err)
	}
	if st.Plan, err = signals.PlanQuery.Get(ctx, c, id); err != nil {
		return st, fmt.Errorf("plan %s: %w", id, err)
	}
	if st.Pending, err = signals.PendingQuery.Get(ctx, c, id); err != nil {
		return st, fmt.Errorf("plan %s: %w", id, err)
	}
	return st, nil
}

func renderState(w io.Writer, st planState) error {
	fmt.Fprintf(w, "Plan %s\n", st.WorkflowID)
	renderProgress(w, st.Progress)
	fmt.Fprintln(w)
	if err := renderOptionsView(w, st.Options); err != nil {
		return err
	}
	fmt.Fprintln(w)
	if err := renderPlan(w, st.Plan); err != nil {
		return err
	}
	fmt.Fprintln(w)
	renderPending(w, st.WorkflowID, st.Pending)
	return nil
}
