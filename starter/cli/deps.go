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
	"github.com/planmode/planmode/planclient"
)

// defaultDialTimeout bounds the first connection to Temporal.
const defaultDialTimeout = 5 * time.Second

// Output formats of --output.
const (
	outputText = "text"
	outputJSON = "json"
)

// deps is what the commands share of one invocation: its streams, the
// output format, the configuration (loaded before a command runs) and
// the Temporal client, dialled on first use. Commands read it when they
// run, not when they are built, since the flags fill it in between.
type deps struct {
	in          io.Reader
	out, errOut io.Writer
	// output is --output: text or json.
	output string
	cfg    config.Config
	client client.Client
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

// newDeps returns the dependencies of an invocation on the given streams.
func newDeps(in io.Reader, out, errOut io.Writer) *deps {
	return &deps{
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

// configure checks --output and loads the configuration.
func (d *deps) configure(cmd *cobra.Command) error {
	if err := d.checkOutput(); err != nil {
		return err
	}
	cfg, err := config.FromFlags(cmd.Flags())
	if err != nil {
		return err
	}
	d.cfg = cfg
	return nil
}

// checkOutput refuses an --output other than text or json.
func (d *deps) checkOutput() error {
	if d.output != outputText && d.output != outputJSON {
		return rejectf(fmt.Sprintf("--output %q: want text or json", d.output))
	}
	return nil
}

// temporal returns the client, dialling Temporal on first use. It returns
// an unreachableError when Temporal does not answer.
func (d *deps) temporal(ctx context.Context) (client.Client, error) {
	if d.client != nil {
		return d.client, nil
	}
	opts, err := d.cfg.ClientConfig(d.cfg.Log.NewLogger(io.Discard))
	if err != nil {
		return nil, err
	}
	dctx, cancel := context.WithTimeout(ctx, d.dialTimeout)
	defer cancel()
	c, err := client.DialContext(dctx, opts)
	if err != nil {
		return nil, &unreachableError{address: d.cfg.Temporal.Address, err: err}
	}
	d.client = c
	d.payloads = converter.GetDefaultDataConverter()
	if opts.DataConverter != nil {
		d.payloads = opts.DataConverter
	}
	return c, nil
}

// plans returns the typed client through which every command talks to a
// plan, on the Temporal client (dialled on first use): plans start on the
// configured task queue, every input names this CLI's caller, and
// Standing waits for a plan's query at most the query timeout.
func (d *deps) plans(ctx context.Context) (*planclient.Client, error) {
	c, err := d.temporal(ctx)
	if err != nil {
		return nil, err
	}
	return planclient.New(c, planclient.WithTaskQueue(d.cfg.Temporal.TaskQueue), planclient.WithIdentity(caller()),
		planclient.WithQueryTimeout(d.queryTimeout), planclient.WithDataConverter(d.payloads),
		planclient.WithNamespace(d.cfg.Temporal.Namespace)), nil
}

// close closes the Temporal client if one was dialled.
func (d *deps) close() {
	if d.client != nil {
		d.client.Close()
		d.client = nil
	}
}

// printer returns the printer of a command's answer in the --output
// format.
func (d *deps) printer() printer {
	return printer{out: d.out, json: d.output == outputJSON}
}

// printer writes a command's answer: as indented JSON under --output json,
// else as the command's text.
type printer struct {
	out  io.Writer
	json bool
}

// printJSON writes v as indented JSON.
func (p printer) printJSON(v any) error {
	enc := json.NewEncoder(p.out)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		return fmt.Errorf("write JSON: %w", err)
	}
	return nil
}

// emit prints v as JSON under --output json, else calls text.
func (p printer) emit(v any, text func(io.Writer) error) error {
	if p.json {
		return p.printJSON(v)
	}
	return text(p.out)
}
