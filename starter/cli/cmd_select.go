package cli

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/planmode/planmode/plan"
	"github.com/planmode/planmode/planclient"
	"github.com/planmode/planmode/signals"
)

func newSelectCmd(d *deps) *cobra.Command {
	var rank int
	var feedback string
	cmd := &cobra.Command{
		Use:   "select <id> [option-id]",
		Short: "Select an option by id or --rank; with a terminal and neither, choose interactively",
		Example: `  planmode select plan-42 r1-o2        # an option id from planmode show
  planmode select plan-42 --rank 1 --feedback "keep it small"
  planmode select plan-42              # at a terminal: pick an option by number`,
		Args: rejectArgs(cobra.RangeArgs(1, 2)),
		RunE: func(cmd *cobra.Command, args []string) error {
			req := signals.SelectOptionRequest{Rank: rank, Feedback: feedback}
			if len(args) == 2 {
				req.OptionID = args[1]
			}
			ask, err := checkSelection(args[0], req, d.interactive)
			if err != nil {
				return err
			}
			pc, err := d.plans(cmd.Context())
			if err != nil {
				return err
			}
			if ask {
				if req.OptionID, err = askOption(cmd.Context(), pc, d.in, d.out, args[0]); err != nil {
					return err
				}
			}
			return selectOption(cmd.Context(), pc, d.printer(), args[0], req)
		},
	}
	cmd.Flags().IntVar(&rank, "rank", 0, "select the option of this rank (1 = recommended)")
	cmd.Flags().StringVar(&feedback, "feedback", "", "feedback to go with the selection")
	return cmd
}

// checkSelection refuses a selection of plan id that names an option both
// ways or a rank below 1, and reports whether the request names no option,
// so that the person at the terminal is asked; without one (interactive
// says) it refuses that too.
func checkSelection(id string, req signals.SelectOptionRequest, interactive func() bool) (bool, error) {
	if req.OptionID != "" && req.Rank != 0 {
		return false, rejectf("give an option id or --rank, not both")
	}
	if req.Rank < 0 {
		return false, rejectf("--rank must be 1 or more")
	}
	ask := req.OptionID == "" && req.Rank == 0
	if ask && !interactive() {
		return false, rejectf(fmt.Sprintf("give an option id or --rank (see `planmode show %s`)", id))
	}
	return ask, nil
}

// askOption reads plan id's options and asks which one on in and out.
func askOption(ctx context.Context, pc *planclient.Client, in io.Reader, out io.Writer, id string) (string, error) {
	view, err := pc.Options(ctx, id)
	if err != nil {
		return "", err
	}
	return choose(in, out, view.Options)
}

// selectOption selects an option of plan id and says which.
func selectOption(ctx context.Context, pc *planclient.Client, p printer, id string, req signals.SelectOptionRequest) error {
	resp, err := pc.Select(ctx, id, req)
	if err != nil {
		return err
	}
	return p.emit(resp, func(w io.Writer) error {
		o := resp.Option
		_, err := fmt.Fprintf(w, "selected %s: %s (%d steps)\n  watch: planmode watch %s\n", o.ID, o.Title, len(o.Plan.Steps), id)
		return err
	})
}

// maxChoiceTries bounds how often choose asks: a person who mistypes gets
// the reason and another go, a script that pipes nonsense does not loop.
const maxChoiceTries = 3

// choose presents opts in full on out (renderOptions), numbered from 1,
// and reads a number (or an option id) from in, asking again with the
// reason after a bad answer, up to maxChoiceTries times. It returns the
// last answer's rejection when none was good.
func choose(in io.Reader, out io.Writer, opts []plan.Option) (string, error) {
	if len(opts) == 0 {
		return "", rejectf("the plan has no options to choose from yet")
	}
	renderOptions(out, opts)
	// One reader for every try: a fresh one per try would drop what the
	// previous one buffered.
	lines := bufio.NewReader(in)
	var bad error
	for try := 1; ; try++ {
		fmt.Fprintf(out, "Select an option (1-%d): ", len(opts))
		line, err := lines.ReadString('\n')
		if err != nil && line == "" {
			if bad != nil {
				return "", bad // the input ended after a bad answer
			}
			return "", fmt.Errorf("read the choice: %w", err)
		}
		id, perr := pick(opts, line)
		switch {
		case perr == nil:
			return id, nil
		case try == maxChoiceTries:
			return "", rejectf(fmt.Sprintf("%v (no valid choice in %d tries)", perr, maxChoiceTries))
		case err != nil:
			return "", perr // the input ended on this bad answer
		}
		bad = perr
		fmt.Fprintf(out, "%v; try again.\n", perr)
	}
}

// pick maps a typed answer, a number or an option id, to an option id.
func pick(opts []plan.Option, answer string) (string, error) {
	answer = strings.TrimSpace(answer)
	if n, err := strconv.Atoi(answer); err == nil {
		if n < 1 || n > len(opts) {
			return "", rejectf(fmt.Sprintf("invalid choice %d: want 1..%d", n, len(opts)))
		}
		return opts[n-1].ID, nil
	}
	for _, o := range opts {
		if o.ID == answer {
			return o.ID, nil
		}
	}
	return "", rejectf(fmt.Sprintf("invalid choice %q: want a number 1..%d or an option id", answer, len(opts)))
}

func newRefineCmd(d *deps) *cobra.Command {
	var feedback string
	cmd := &cobra.Command{
		Use:     "refine <id> --feedback <text>",
		Short:   "Ask for new options from feedback",
		Example: `  planmode refine plan-42 --feedback "avoid new dependencies"`,
		Args:    rejectArgs(cobra.ExactArgs(1)),
		RunE: func(cmd *cobra.Command, args []string) error {
			if strings.TrimSpace(feedback) == "" {
				return rejectf("--feedback is required")
			}
			pc, err := d.plans(cmd.Context())
			if err != nil {
				return err
			}
			view, err := pc.Refine(cmd.Context(), args[0], signals.RefinePlanRequest{Feedback: feedback})
			if err != nil {
				return err
			}
			return d.printer().emit(view, func(w io.Writer) error { return renderOptionsView(w, view) })
		},
	}
	cmd.Flags().StringVar(&feedback, "feedback", "", "what the new options should do differently")
	return cmd
}
