// Package cli is the planmode command line: the operator's view of
// PlanMode runs. It starts plans, lists and shows them, answers what they
// wait for (selection, clarification, skip confirmation), edits, pauses,
// resumes, cancels and rolls them back, and watches their progress; with
// codec-server it decrypts payloads for the Web UI and the temporal CLI.
// Every command that talks to a plan goes through planclient, the typed
// client other Go services use, which also says the plan's errors; every
// contract name comes from the signals package.
//
// Each command is built by a newXxxCmd function over deps, what the
// commands share of one invocation (streams, --output, the configuration
// and the Temporal client dialled on first use); the work of a command is
// a plain function of what it needs, usually the plan client and a
// printer.
//
// # Exit codes
//
//	0  success
//	1  any other failure
//	2  Temporal cannot be reached
//	3  no such plan
//	4  the plan (or the CLI) rejected the input
//	5  result: the plan ended failed or cancelled
package cli

import (
	"context"
	"fmt"
	"io"
	"time"

	"github.com/spf13/cobra"

	"github.com/planmode/planmode/internal/config"
	"github.com/planmode/planmode/internal/version"
)

// Option adjusts how Run talks to its user.
type Option func(*deps)

// WithInteractive says whether a person sits at a terminal: select then
// asks for a choice and watch draws a progress bar. By default Run asks
// the terminal.
func WithInteractive(yes bool) Option {
	return func(d *deps) {
		d.interactive = func() bool { return yes }
		d.live = func() bool { return yes }
	}
}

// WithPollInterval sets how often watch asks for progress. Default 1s.
func WithPollInterval(interval time.Duration) Option {
	return func(d *deps) { d.pollInterval = interval }
}

// Run executes the command line args (without the program name), reading
// answers from in and writing to out and errOut, and returns the exit code.
func Run(ctx context.Context, args []string, in io.Reader, out, errOut io.Writer, opts ...Option) int {
	d := newDeps(in, out, errOut)
	for _, o := range opts {
		o(d)
	}
	return run(ctx, d, args)
}

// run executes args over d and returns the exit code, printing any error.
func run(ctx context.Context, d *deps, args []string) int {
	root := newRootCmd(d)
	root.SetArgs(args)
	root.SetIn(d.in)
	root.SetOut(d.out)
	root.SetErr(d.errOut)
	err := root.ExecuteContext(ctx)
	d.close()
	if err != nil {
		// A plan's errors come from the client, which says them
		// as a person reads them.
		fmt.Fprintln(d.errOut, "planmode:", err)
	}
	return exitCode(err)
}

// newRootCmd builds the command tree over d.
func newRootCmd(d *deps) *cobra.Command {
	root := &cobra.Command{
		Use:           "planmode",
		Short:         "Start, watch and steer PlanMode runs on Temporal",
		Version:       version.Version(),
		SilenceUsage:  true,
		SilenceErrors: true,
		PersistentPreRunE: func(cmd *cobra.Command, _ []string) error {
			return d.configure(cmd)
		},
	}
	// Defined now rather than when cobra executes, so that finding the
	// command knows --version takes no value: `planmode --version
	// --address x` must not read --address as its value.
	root.InitDefaultVersionFlag()
	root.SetVersionTemplate(version.String("planmode") + "\n")
	config.AddTemporalFlags(root.PersistentFlags())
	root.PersistentFlags().StringVarP(&d.output, "output", "o", outputText, "output format: text or json")
	for _, newCmd := range []func(*deps) *cobra.Command{
		newStartCmd, newListCmd, newShowCmd, newSelectCmd, newRefineCmd, newAnswerCmd, newConfirmSkipCmd,
		newApprovalsCmd, newApproveCmd, newDenyCmd, newRaiseBudgetCmd, newEditCmd, newPauseCmd, newResumeCmd,
		newCancelCmd, newRollbackCmd, newForkCmd, newGCCmd, newOutputCmd, newExportCmd, newWatchCmd,
		newResultCmd, newGraphCmd, newCodecServerCmd, newServeCmd, newMCPCmd, newHealthcheckCmd, newVersionCmd,
	} {
		root.AddCommand(newCmd(d))
	}
	return root
}
