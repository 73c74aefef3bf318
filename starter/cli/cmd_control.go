package cli

import (
	"context"
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/planmode/planmode/planclient"
	"github.com/planmode/planmode/signals"
)

func newPauseCmd(d *deps) *cobra.Command {
	cmd := newControlCmd(d, "pause", "Pause a plan at the next step boundary", (*planclient.Client).Pause)
	cmd.Example = `  planmode pause plan-42 --reason "review first"`
	return cmd
}

func newResumeCmd(d *deps) *cobra.Command {
	cmd := newControlCmd(d, "resume", "Resume a paused plan", (*planclient.Client).Resume)
	cmd.Example = `  planmode resume plan-42 --reason "reviewed"`
	return cmd
}

// control is the client's Pause or Resume.
type control func(*planclient.Client, context.Context, string, signals.ControlRequest) (signals.ControlState, error)

// newControlCmd builds pause or resume, which send sends.
func newControlCmd(d *deps, name, short string, send control) *cobra.Command {
	var reason string
	cmd := &cobra.Command{
		Use:   name + " <id>",
		Short: short,
		Args:  rejectArgs(cobra.ExactArgs(1)),
		RunE: func(cmd *cobra.Command, args []string) error {
			pc, err := d.plans(cmd.Context())
			if err != nil {
				return err
			}
			st, err := send(pc, cmd.Context(), args[0], signals.ControlRequest{Reason: reason})
			if err != nil {
				return err
			}
			return d.printer().emit(st, func(w io.Writer) error {
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

func newCancelCmd(d *deps) *cobra.Command {
	return &cobra.Command{
		Use:     "cancel <id>",
		Short:   "Cancel a plan; it stops its steps and writes a partial summary",
		Example: `  planmode cancel plan-42`,
		Args:    rejectArgs(cobra.ExactArgs(1)),
		RunE: func(cmd *cobra.Command, args []string) error {
			pc, err := d.plans(cmd.Context())
			if err != nil {
				return err
			}
			if err := pc.Cancel(cmd.Context(), args[0], signals.ControlRequest{By: caller()}); err != nil {
				return err
			}
			answer := map[string]any{"workflowId": args[0], "cancelRequested": true}
			return d.printer().emit(answer, func(w io.Writer) error {
				_, err := fmt.Fprintf(w, "cancellation requested for %s\n  result: planmode result %s\n", args[0], args[0])
				return err
			})
		},
	}
}
