package cli

import (
	"context"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/planmode/planmode/planclient"
	"github.com/planmode/planmode/signals"
	"github.com/planmode/planmode/workspace"
	"github.com/planmode/planmode/workspace/filesconfig"
)

func newForkCmd(d *deps) *cobra.Command {
	var from, goal, id string
	var watch bool
	cmd := &cobra.Command{
		Use:   "fork <id> --from <step>",
		Short: "Start a new plan from another plan's files as they were after one of its steps",
		Long: `Start a new plan whose workspace holds the files plan <id> had after step --from, and whose plan is
the steps not done after it; with --goal it plans afresh for that goal on those files. The plan forked from is
only read, open or ended, and never changed. Other services start the same with a start request's
"fork": {"planId": ..., "stepId": ...}.`,
		Example: `  planmode fork plan-42 --from s1                       # go on from step s1's files with the steps left
  planmode fork plan-42 --from s1 --goal "Try the other approach" --id plan-42-b`,
		Args: rejectArgs(cobra.ExactArgs(1)),
		RunE: func(cmd *cobra.Command, args []string) error {
			if strings.TrimSpace(from) == "" {
				return rejectf("fork: --from names the step whose files the new plan starts from")
			}
			req, err := planclient.CheckStart(signals.StartRequest{Goal: goal, Fork: &signals.ForkRef{PlanID: args[0], StepID: from}})
			if err != nil {
				return rejectf(err.Error())
			}
			return start(cmd.Context(), d, req, id, watch)
		},
	}
	cmd.Flags().StringVar(&from, "from", "", "the step after which the files are taken (required)")
	cmd.Flags().StringVar(&goal, "goal", "", "a goal of its own (default: the parent's, going on with its steps left)")
	cmd.Flags().StringVar(&id, "id", "", "the new plan's workflow id (default: a new one)")
	cmd.Flags().BoolVar(&watch, "watch", false, "watch the new plan until it ends")
	return cmd
}

func newGCCmd(d *deps) *cobra.Command {
	var dryRun bool
	var grace time.Duration
	cmd := &cobra.Command{
		Use:   "gc",
		Short: "Remove the stored workspace files no open plan, and no plan ended within the retention, references",
		Long: `Remove from workspace.store the file contents and manifests that no open plan references, nor any plan
that ended less than workspace.snapshotRetention ago (its rollback points). Workers do the same hourly;
--dry-run shows what would go and removes nothing.`,
		Example: `  planmode gc --dry-run
  planmode gc`,
		Args: rejectArgs(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, _ []string) error {
			files, err := filesconfig.Open(d.cfg.Workspace)
			if err != nil {
				return err
			}
			if files == nil {
				return rejectf("gc: no workspace.store is configured")
			}
			pc, err := d.plans(cmd.Context())
			if err != nil {
				return err
			}
			req := workspace.CollectRequest{Now: time.Now(), DryRun: dryRun, Grace: grace,
				Retention: d.cfg.Workspace.SnapshotRetention, PlanState: planclient.PlanState(pc.Temporal())}
			return collect(cmd.Context(), files, d.printer(), req)
		},
	}
	cmd.Flags().BoolVar(&dryRun, "dry-run", false, "show what would be removed, remove nothing")
	cmd.Flags().DurationVar(&grace, "grace", time.Hour, "keep unreferenced files younger than this (a record in flight)")
	return cmd
}

// collect removes from files what req lets go, or with req.DryRun only
// counts it, and says what.
func collect(ctx context.Context, files *workspace.Files, p printer, req workspace.CollectRequest) error {
	got, err := files.Collect(ctx, req)
	if err != nil {
		return err
	}
	return p.emit(gcResult{DryRun: req.DryRun, Collected: got}, func(w io.Writer) error {
		verb := "removed"
		if req.DryRun {
			verb = "would remove"
		}
		fmt.Fprintf(w, "%s %d blob(s) (%d bytes), %d manifest(s), %d pin(s)\n", verb, got.Blobs, got.Bytes, got.Manifests, got.Pins)
		for _, k := range got.Sample {
			fmt.Fprintf(w, "  %s\n", k)
		}
		return nil
	})
}

// gcResult is gc's answer.
type gcResult struct {
	DryRun bool `json:"dryRun"`
	workspace.Collected
}
