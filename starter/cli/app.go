// Package cli is the planmode command line: the operator's view of
// PlanMode runs. It starts plans, lists and shows them, answers what they
// wait for (selection, clarification, skip confirmation), edits, pauses,
// resumes, cancels and rolls them back, and watches their progress; with
// codec-server it decrypts payloads for the Web UI and the temporal CLI.
// Every command that talks to a plan goes through planclient, the typed
// client other Go services use, which also says the plan's errors; every
// contract name comes from the signals package.
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
	"encoding/json"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/spf13/cobra"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/converter"
	"golang.org/x/term"

	"github.com/planmode/planmode/internal/config"
	"github.com/planmode/planmode/internal/version"
	"github.com/planmode/planmode/planclient"
)

// defaultDialTimeout bounds the first connection to Temporal.
const defaultDialTimeout = 5 * time.Second

// Output formats of --output.
const (
	outputText = "text"
	outputJSON = "json"
)

// app is one invocation of the CLI: its streams, its configuration and the
// Temporal client, dialled on first use.
type app struct {
	in          io.Reader
	out, errOut io.Writer
	output      string
	cfg         config.Config
	client      client.Client
	// payloads decodes what the client reads raw (memos in listings): the
	// codec's converter when payloads are encrypted, else the default.
	payloads converter.DataConverter
	// interactive reports whether a person sits at the terminal; tests set
	// it.
	interactive func() bool
	// live reports whether out is a terminal, where watch draws a progress
	// bar; elsewhere it writes a line per change.
	live func() bool
	// pollInterval is how often watch asks for progress.
	pollInterval time.Duration
	// queryTimeout bounds the queries of show and watch: past it they
	// answer from the plan's search attributes.
	queryTimeout time.Duration
	// dialTimeout bounds the first connection to Temporal.
	dialTimeout time.Duration
}

// newApp returns an app on the given streams.
func newApp(in io.Reader, out, errOut io.Writer) *app {
	return &app{
		in: in, out: out, errOut: errOut,
		interactive:  func() bool { return isTerminal(in) && isTerminal(out) },
		live:         func() bool { return isTerminal(out) },
		pollInterval: time.Second,
		queryTimeout: planclient.DefaultQueryTimeout,
		dialTimeout:  defaultDialTimeout,
	}
}

// isTerminal reports whether f is a terminal.
func isTerminal(f any) bool {
	file, ok := f.(*os.File)
	return ok && term.IsTerminal(int(file.Fd()))
}

// Option adjusts how Run talks to its user.
type Option func(*app)

// WithInteractive says whether a person sits at a terminal: select then
// asks for a choice and watch draws a progress bar. By default Run asks
// the terminal.
func WithInteractive(yes bool) Option {
	return func(a *app) {
		a.interactive = func() bool { return yes }
		a.live = func() bool { return yes }
	}
}

// WithPollInterval sets how often watch asks for progress. Default 1s.
func WithPollInterval(d time.Duration) Option {
	return func(a *app) { a.pollInterval = d }
}

// Run executes the command line args (without the program name), reading
// answers from in and writing to out and errOut, and returns the exit code.
func Run(ctx context.Context, args []string, in io.Reader, out, errOut io.Writer, opts ...Option) int {
	a := newApp(in, out, errOut)
	for _, o := range opts {
		o(a)
	}
	return a.run(ctx, args)
}

// run executes args and returns the exit code, printing any error.
func (a *app) run(ctx context.Context, args []string) int {
	root := a.rootCmd()
	root.SetArgs(args)
	root.SetIn(a.in)
	root.SetOut(a.out)
	root.SetErr(a.errOut)
	err := root.ExecuteContext(ctx)
	if a.client != nil {
		a.client.Close()
		a.client = nil
	}
	if err != nil {
		// A plan's errors come from the client, which says them
		// as a person reads them.
		fmt.Fprintln(a.errOut, "planmode:", err)
	}
	return exitCode(err)
}

// rootCmd builds the command tree.
func (a *app) rootCmd() *cobra.Command {
	root := &cobra.Command{
		Use:           "planmode",
		Short:         "Start, watch and steer PlanMode runs on Temporal",
		Version:       version.Version(),
		SilenceUsage:  true,
		SilenceErrors: true,
		PersistentPreRunE: func(cmd *cobra.Command, _ []string) error {
			return a.configure(cmd)
		},
	}
	// Defined now rather than when cobra executes, so that finding the
	// command knows --version takes no value: `planmode --version
	// --address x` must not read --address as its value.
	root.InitDefaultVersionFlag()
	root.SetVersionTemplate(version.String("planmode") + "\n")
	config.AddTemporalFlags(root.PersistentFlags())
	root.PersistentFlags().StringVarP(&a.output, "output", "o", outputText, "output format: text or json")
	root.AddCommand(a.startCmd(), a.listCmd(), a.showCmd(), a.selectCmd(), a.refineCmd(), a.answerCmd(),
		a.confirmSkipCmd(), a.approvalsCmd(), a.approveCmd(), a.denyCmd(), a.raiseBudgetCmd(), a.editCmd(), a.pauseCmd(), a.resumeCmd(), a.cancelCmd(), a.rollbackCmd(), a.forkCmd(), a.gcCmd(), a.outputCmd(), a.exportCmd(),
		a.watchCmd(), a.resultCmd(), a.graphCmd(), a.codecServerCmd(), a.healthcheckCmd(), a.versionCmd())
	return root
}

// configure checks --output and loads the configuration.
func (a *app) configure(cmd *cobra.Command) error {
	if err := a.checkOutput(); err != nil {
		return err
	}
	cfg, err := config.FromFlags(cmd.Flags())
	if err != nil {
		return err
	}
	a.cfg = cfg
	return nil
}

// checkOutput refuses an --output other than text or json.
func (a *app) checkOutput() error {
	if a.output != outputText && a.output != outputJSON {
		return rejectf(fmt.Sprintf("--output %q: want text or json", a.output))
	}
	return nil
}

// temporal returns the client, dialling Temporal on first use. It returns
// an unreachableError when Temporal does not answer.
func (a *app) temporal(ctx context.Context) (client.Client, error) {
	if a.client != nil {
		return a.client, nil
	}
	opts, err := a.cfg.ClientOptions(a.cfg.Log.NewLogger(io.Discard))
	if err != nil {
		return nil, err
	}
	dctx, cancel := context.WithTimeout(ctx, a.dialTimeout)
	defer cancel()
	c, err := client.DialContext(dctx, opts)
	if err != nil {
		return nil, &unreachableError{address: a.cfg.Temporal.Address, err: err}
	}
	a.client = c
	a.payloads = converter.GetDefaultDataConverter()
	if opts.DataConverter != nil {
		a.payloads = opts.DataConverter
	}
	return c, nil
}

// plans returns the typed client through which every command talks to a
// plan, on the Temporal client (dialled on first use): plans start on the
// configured task queue, every input names this CLI's caller, and
// Standing waits for a plan's query at most the query timeout.
func (a *app) plans(ctx context.Context) (*planclient.Client, error) {
	c, err := a.temporal(ctx)
	if err != nil {
		return nil, err
	}
	return planclient.New(c, planclient.WithTaskQueue(a.cfg.Temporal.TaskQueue), planclient.WithIdentity(caller()),
		planclient.WithQueryTimeout(a.queryTimeout)), nil
}

// jsonOutput reports whether --output json was asked for.
func (a *app) jsonOutput() bool { return a.output == outputJSON }

// printJSON writes v as indented JSON.
func (a *app) printJSON(v any) error {
	enc := json.NewEncoder(a.out)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		return fmt.Errorf("write JSON: %w", err)
	}
	return nil
}

// emit prints v as JSON under --output json, else calls text.
func (a *app) emit(v any, text func(io.Writer) error) error {
	if a.jsonOutput() {
		return a.printJSON(v)
	}
	return text(a.out)
}
