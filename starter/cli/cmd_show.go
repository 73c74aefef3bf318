package cli

import (
	"context"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/planmode/planmode/codec"
	"github.com/planmode/planmode/planclient"
	"github.com/planmode/planmode/signals"
)

// planState is everything show reports about a plan. Source says where
// its progress came from (planclient.SourceLog or SourceQuery), or is
// SourceSearchAttributes when the plan has not run yet or did not answer
// in time: then Standing is all there is.
type planState struct {
	WorkflowID string               `json:"workflowId"`
	Source     string               `json:"source"`
	Standing   *planclient.Standing `json:"standing,omitempty"`
	Progress   signals.Progress     `json:"progress"`
	Options    signals.OptionsView  `json:"options"`
	Plan       signals.PlanView     `json:"plan"`
	Pending    signals.Pending      `json:"pending"`
}

func newShowCmd(d *deps) *cobra.Command {
	var export bool
	cmd := &cobra.Command{
		Use:   "show <id>",
		Short: "Show a plan: progress, options with their comparison, steps and what it waits for",
		Example: `  planmode show plan-42
  planmode show plan-42 --output json   # {"progress", "options", "plan", "pending"}`,
		Args: rejectArgs(cobra.ExactArgs(1)),
		RunE: func(cmd *cobra.Command, args []string) error {
			if export {
				return runExport(cmd.Context(), d, args[0])
			}
			if err := checkQueryTimeout(d.queryTimeout); err != nil {
				return err
			}
			pc, err := d.plans(cmd.Context())
			if err != nil {
				return err
			}
			st, err := state(cmd.Context(), pc, d.queryTimeout, args[0])
			if err != nil {
				return err
			}
			return d.printer().emit(st, func(w io.Writer) error { return renderState(w, st) })
		},
	}
	queryTimeoutFlag(cmd, &d.queryTimeout)
	cmd.Flags().BoolVar(&export, "export", false, "print only the plan's steps, in the format start --plan reads (as planmode export does)")
	return cmd
}

// state asks how the plan stands and, when it answers its queries, runs
// the other three within queryTimeout. A plan that has not run yet, or
// does not answer within the query timeout, is shown from its search
// attributes (Standing).
func state(ctx context.Context, pc *planclient.Client, queryTimeout time.Duration, id string) (planState, error) {
	st := planState{WorkflowID: id}
	standing, err := pc.Standing(ctx, id)
	if err != nil {
		return st, err
	}
	if standing.Progress == nil {
		st.Source, st.Standing = standing.Source, &standing
		return st, nil
	}
	st.Source, st.Progress = standing.Source, *standing.Progress
	qctx, cancel := context.WithTimeout(ctx, queryTimeout)
	defer cancel()
	if st.Options, err = pc.Options(qctx, id); err != nil {
		return st, err
	}
	if st.Plan, err = pc.Plan(qctx, id); err != nil {
		return st, err
	}
	st.Pending, err = pc.Pending(qctx, id)
	return st, err
}

func renderState(w io.Writer, st planState) error {
	fmt.Fprintf(w, "Plan %s\n", st.WorkflowID)
	if s := st.Standing; s != nil {
		switch {
		case strings.HasPrefix(s.Goal, codec.DigestPrefix):
			// PlanGoal of an encrypted plan: a digest says nothing.
			fmt.Fprintln(w, "Goal: (encrypted)")
		case s.Goal != "":
			fmt.Fprintf(w, "Goal: %s\n", s.Goal)
		}
		fmt.Fprintln(w, s.Summary())
		return nil
	}
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
