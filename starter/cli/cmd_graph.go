package cli

import (
	"context"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/planmode/planmode/plan"
	"github.com/planmode/planmode/planclient"
)

// Graph formats of --format.
const (
	formatMermaid = "mermaid"
	formatDOT     = "dot"
)

// drawers maps each graph format to its drawing.
var drawers = map[string]func(plan.Plan) string{
	formatMermaid: plan.Mermaid,
	formatDOT:     plan.DOT,
}

// drawnGraph is graph's answer.
type drawnGraph struct {
	WorkflowID string `json:"workflowId"`
	PlanID     string `json:"planId"`
	// OptionID names the option drawn, when --option chose one.
	OptionID string `json:"optionId,omitempty"`
	Format   string `json:"format"`
	Graph    string `json:"graph"`
}

func newGraphCmd(d *deps) *cobra.Command {
	var format, option string
	cmd := &cobra.Command{
		Use:   "graph <id>",
		Short: "Draw the selected plan, or an option's, as a Mermaid flowchart or a Graphviz digraph",
		Example: `  planmode graph plan-42 > plan.mmd
  planmode graph plan-42 --format dot | dot -Tsvg > plan.svg
  planmode graph plan-42 --option 2          # before selection: the option of rank 2 (or an option id)`,
		Args: rejectArgs(cobra.ExactArgs(1)),
		RunE: func(cmd *cobra.Command, args []string) error {
			draw, ok := drawers[format]
			if !ok {
				return rejectf(fmt.Sprintf("--format %q: want mermaid or dot", format))
			}
			pc, err := d.plans(cmd.Context())
			if err != nil {
				return err
			}
			return graph(cmd.Context(), pc, d.printer(), args[0], option, format, draw)
		},
	}
	cmd.Flags().StringVar(&format, "format", formatMermaid, "mermaid or dot")
	cmd.Flags().StringVar(&option, "option", "", "draw this option's plan instead of the selected one: an option id or a rank")
	return cmd
}

// graph draws with draw, in format, plan id's selected plan or the option
// option names.
func graph(ctx context.Context, pc *planclient.Client, out printer, id, option, format string, draw func(plan.Plan) string) error {
	g := drawnGraph{WorkflowID: id, Format: format}
	var p plan.Plan
	var err error
	if option == "" {
		p, err = selectedPlan(ctx, pc, id)
	} else {
		var o plan.Option
		o, err = optionPlan(ctx, pc, id, option)
		p, g.OptionID = o.Plan, o.ID
	}
	if err != nil {
		return err
	}
	g.PlanID, g.Graph = p.ID, draw(p)
	return out.emit(g, func(w io.Writer) error {
		_, err := io.WriteString(w, g.Graph)
		return err
	})
}

// selectedPlan asks plan id for its selected plan. It refuses when none is
// selected yet.
func selectedPlan(ctx context.Context, pc *planclient.Client, id string) (plan.Plan, error) {
	view, err := pc.Plan(ctx, id)
	if err != nil {
		return plan.Plan{}, err
	}
	if view.Plan == nil {
		return plan.Plan{}, rejectf(fmt.Sprintf("plan %s has no selected plan yet: draw an option's with --option <id|rank> (see `planmode show %s`)", id, id))
	}
	return *view.Plan, nil
}

// optionPlan asks plan id for its options and returns the one ref names:
// an option id, else a rank.
func optionPlan(ctx context.Context, pc *planclient.Client, id, ref string) (plan.Option, error) {
	view, err := pc.Options(ctx, id)
	if err != nil {
		return plan.Option{}, err
	}
	if len(view.Options) == 0 {
		return plan.Option{}, rejectf(fmt.Sprintf("plan %s has no options yet", id))
	}
	return findOption(view.Options, ref)
}

// findOption returns the option whose id is ref or, when ref is a number,
// whose rank is ref (its position when options are unranked).
func findOption(opts []plan.Option, ref string) (plan.Option, error) {
	ref = strings.TrimSpace(ref)
	for _, o := range opts {
		if o.ID == ref {
			return o, nil
		}
	}
	if n, err := strconv.Atoi(ref); err == nil {
		for i, o := range opts {
			if o.Rank == n || (o.Rank == 0 && i+1 == n) {
				return o, nil
			}
		}
	}
	ids := make([]string, len(opts))
	for i, o := range opts {
		ids[i] = o.ID
	}
	return plan.Option{}, rejectf(fmt.Sprintf("no option %q: want a rank 1..%d or one of %s", ref, len(opts), strings.Join(ids, ", ")))
}
