package cli

import (
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/planmode/planmode/signals"
)

func (a *app) pauseCmd() *cobra.Command {
	cmd := a.controlCmd("pause", "Pause a plan at the next step boundary", signals.Pause)
	cmd.Example = `  planmode pause plan-42 --reason "review first"`
	return cmd
}

func (a *app) resumeCmd() *cobra.Command {
	cmd := a.controlCmd("resume", "Resume a paused plan", signals.Resume)
	cmd.Example = `  planmode resume plan-42 --reason "reviewed"`
	return cmd
}

// controlCmd builds pause or resume.
func (a *app) controlCmd(name, short string, h signals.Handler[signals.ControlRequest, signals.ControlState]) *cobra.Command {
	var reason string
	cmd := &cobra.Command{
		Use:   name + " <id>",
		Short: short,
		Args:  rejectArgs(cobra.ExactArgs(1)),
		RunE: func(cmd *cobra.Command, args []string) error {
			c, err := a.temporal(cmd.Context())
			if err != nil {
				return err
			}
			st, err := h.Update(cmd.Context(), c, args[0], signals.ControlRequest{Reason: reason, By: caller()})
			if err != nil {
				return fmt.Errorf("plan %s: %w", args[0], err)
			}
			return a.emit(st, func(w io.Writer) error {
				state := "running"
				if st.Paused {
					state = "paused"
				}
				_, err := fmt.Fprintf(w, "plan %s is %s (phase %s)\n", args[0], state, st.Phase)
				return err
			})
		},
	}
	cmd.Flags().StringVar(&reason, "reason", "", "why")
	return cmd
}

func (a *app) cancelCmd() *cobra.Command {
	return &cobra.Command{
		Use:     "cancel <id>",
		Short:   "Cancel a plan; it stops its steps and writes a partial summary",
		Example: `  planmode cancel plan-42`,
		Args:    rejectArgs(cobra.ExactArgs(1)),
		RunE: func(cmd *cobra.Command, args []string) error {
			c, err := a.temporal(cmd.Context())
			if err != nil {
				return err
			}
			if err := c.CancelWorkflow(cmd.Context(), args[0], ""); err != nil {
				return fmt.Errorf("cancel plan %s: %w", args[0], err)
			}
			answer := map[string]any{"workflowId": args[0], "cancelRequested": true}
			return a.emit(answer, func(w io.Writer) error {
				_, err := fmt.Fprintf(w, "cancellation requested for %s\n  result: planmode result %s\n", args[0], args[0])
				return err
			})
		},
	}
}
