package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/sdk/temporal"

	"github.com/spf13/cobra"

	"github.com/planmode/planmode/planclient"
	"github.com/planmode/planmode/signals"
)

func newRollbackCmd(d *deps) *cobra.Command {
	var force bool
	var to string
	cmd := &cobra.Command{
		Use:   "rollback <id>",
		Short: "Restore the workspace files as they were before execution or after a step, while the plan runs or after it ended",
		Long: `Restore the workspace files as they were before execution, or with --to as they were after that step.

While the plan runs, its rollback update restores them, and the steps that run next start from them. After it
ended (completed, failed or cancelled), a PlanRollback workflow (id <id>-rollback-<n>) does, and refuses when
files changed after the plan ended, naming them, unless --force.`,
		Example: `  planmode rollback plan-42            # once execution has started; also after the plan ended
  planmode rollback plan-42 --to s1    # the files as step s1 left them
  planmode rollback plan-42 --force    # after the end: overwrite files changed since`,
		Args: rejectArgs(cobra.ExactArgs(1)),
		RunE: func(cmd *cobra.Command, args []string) error {
			pc, err := d.plans(cmd.Context())
			if err != nil {
				return err
			}
			return rollback(cmd.Context(), pc, d.printer(), args[0], to, force)
		},
	}
	cmd.Flags().StringVar(&to, "to", "", "the step whose files to restore (default: as before execution)")
	cmd.Flags().BoolVar(&force, "force", false, "after the plan ended: restore even over files changed since")
	return cmd
}

// rollback restores plan id's workspace by the path its status allows: the
// update while it runs, a PlanRollback once it ended.
func rollback(ctx context.Context, pc *planclient.Client, p printer, id, to string, force bool) error {
	status, err := pc.Status(ctx, id)
	if err != nil {
		return err
	}
	if status == enumspb.WORKFLOW_EXECUTION_STATUS_RUNNING {
		resp, err := pc.Rollback(ctx, id, to)
		if err != nil {
			return err
		}
		return p.emit(resp, func(w io.Writer) error { return renderRestored(w, resp.Restored, resp.Removed) })
	}
	res, err := pc.RollbackEnded(ctx, id, to, force)
	var app *temporal.ApplicationError
	if errors.As(err, &app) && app.Type() == signals.ErrorTypeWorkspaceChanged {
		return rejectf(fmt.Sprintf("plan %s: %s (--force)", id, app.Message()))
	}
	if err != nil {
		return err
	}
	return p.emit(res, func(w io.Writer) error {
		fmt.Fprintf(w, "plan %s ended %s; workspace %s back to %s\n", id, res.PlanStatus, res.Workspace, res.SnapshotID)
		if res.Forced && len(res.ChangedSince) > 0 {
			fmt.Fprintf(w, "  overwritten (changed after the end): %s\n", strings.Join(res.ChangedSince, ", "))
		}
		return renderRestored(w, res.Restored, res.Removed)
	})
}

// renderRestored prints what a rollback put back and removed.
func renderRestored(w io.Writer, restored, removed []string) error {
	fmt.Fprintf(w, "restored %d file(s), removed %d\n", len(restored), len(removed))
	if len(restored) > 0 {
		fmt.Fprintf(w, "  restored: %s\n", strings.Join(restored, ", "))
	}
	if len(removed) > 0 {
		fmt.Fprintf(w, "  removed:  %s\n", strings.Join(removed, ", "))
	}
	return nil
}
