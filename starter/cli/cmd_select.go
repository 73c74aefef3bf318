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
	"github.com/planmode/planmode/signals"
)

func (a *app) selectCmd() *cobra.Command {
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
			return a.selectOption(cmd.Context(), args[0], req)
		},
	}
	cmd.Flags().IntVar(&rank, "rank", 0, "select the option of this rank (1 = recommended)")
	cmd.Flags().StringVar(&feedback, "feedback", "", "feedback to go with the selection")
	return cmd
}

func (a *app) selectOption(ctx context.Context, id string, req signals.SelectOptionRequest) error {
	if req.OptionID != "" && req.Rank != 0 {
		return rejectf("give an option id or --rank, not both")
	}
	if req.Rank < 0 {
		return rejectf("--rank must be 1 or more")
	}
	choose := req.OptionID == "" && req.Rank == 0
	if choose && !a.interactive() {
		return rejectf(fmt.Sprintf("give an option id or --rank (see `planmode show %s`)", id))
	}
	pc, err := a.plans(ctx)
	if err != nil {
		return err
	}
	if choose {
		view, err := pc.Options(ctx, id)
		if err != nil {
			return err
		}
		if req.OptionID, err = a.choose(view.Options); err != nil {
			return err
		}
	}
	resp, err := pc.Select(ctx, id, req)
	if err != nil {
		return err
	}
	return a.emit(resp, func(w io.Writer) error {
		o := resp.Option
		_, err := fmt.Fprintf(w, "selected %s: %s (%d steps)\n  watch: planmode watch %s\n", o.ID, o.Title, len(o.Plan.Steps), id)
		return err
	})
}

// maxChoiceTries bounds how often choose asks: a person who mistypes gets
// the reason and another go, a script that pipes nonsense does not loop.
const maxChoiceTries = 3

// choose presents opts as seed 000's CLIOptionPresenter does and reads a
// number (or an option id) from the terminal, asking again with the reason
// after a bad answer, up to maxChoiceTries times. It returns the last
// answer's rejection when none was good.
func (a *app) choose(opts []plan.Option) (string, error) {
	if len(opts) == 0 {
		return "", rejectf("the plan has no options to choose from yet")
	}
	renderOptions(a.out, opts)
	// One reader for every try: a fresh one per try would drop what the
	// previous one buffered.
	in := bufio.NewReader(a.in)
	var bad error
	for try := 1; ; try++ {
		fmt.Fprintf(a.out, "Select an option (1-%d): ", len(opts))
		line, err := in.ReadString('\n')
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
		fmt.Fprintf(a.out, "%v; try again.\n", perr)
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

func (a *app) refineCmd() *cobra.Command {
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
			pc, err := a.plans(cmd.Context())
			if err != nil {
				return err
			}
			view, err := pc.Refine(cmd.Context(), args[0], signals.RefinePlanRequest{Feedback: feedback})
			if err != nil {
				return err
			}
			return a.emit(view, func(w io.Writer) error { return renderOptionsView(w, view) })
		},
	}
	cmd.Flags().StringVar(&feedback, "feedback", "", "what the new options should do differently")
	return cmd
}
