package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/spf13/cobra"

	"github.com/planmode/planmode/mcpserver"
	"github.com/planmode/planmode/planclient"
	"github.com/planmode/planmode/serve"
)

func newMCPCmd(d *deps) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "mcp",
		Short: "Serve planmode's MCP tools and resources over stdio, for an agent host on this machine",
		Long: `mcp speaks the Model Context Protocol on its standard input and output: an agent's host (Claude Code,
Codex, Cursor) starts it and drives plans through its tools (plan_start, plan_status, plan_select, ...,
one per operation) and reads them through its resources (plan://{id}, plan://{id}/graph). It reaches
Temporal as every other command does (temporal.* keys and flags) and names this command line's caller
in every input it sends. It writes nothing else on standard output; it runs until its input ends.
Over HTTP the same tools are served at /mcp by planmode serve. See docs/mcp-server.md.`,
		Example: `  claude mcp add planmode -- planmode mcp
  {"mcpServers": {"planmode": {"command": "planmode", "args": ["mcp"]}}}`,
		Args: rejectArgs(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, _ []string) error {
			return runMCP(cmd.Context(), d)
		},
	}
	queryTimeoutFlag(cmd, &d.queryTimeout)
	return cmd
}

// runMCP dials Temporal, then serves the MCP tools over d's input and
// output until the input ends or ctx does.
func runMCP(ctx context.Context, d *deps) error {
	if err := checkQueryTimeout(d.queryTimeout); err != nil {
		return err
	}
	plans, err := d.plans(ctx)
	if err != nil {
		return err
	}
	srv := mcpserver.New(plans, mcpserver.WithCaller(mcpserver.Caller{Identity: caller()}),
		mcpserver.WithQueryTimeout(d.queryTimeout), mcpserver.WithNamespace(d.cfg.Temporal.Namespace))
	t := &mcp.IOTransport{Reader: io.NopCloser(d.in), Writer: nopWriteCloser{d.out}, MaxLineLength: mcpserver.MaxBodyBytes}
	err = srv.Run(ctx, mcpserver.TaskTransport(t))
	if err == nil || errors.Is(err, io.EOF) || ctx.Err() != nil {
		return nil
	}
	return fmt.Errorf("mcp: %w", err)
}

// nopWriteCloser is a writer the transport may close without closing it.
type nopWriteCloser struct{ io.Writer }

func (nopWriteCloser) Close() error { return nil }

// mcpMount is what planmode serve mounts at /mcp: the MCP tools over
// Streamable HTTP, each request for the caller its token names, bounded
// as a tool call is (its body, and its time plus a margin to write the
// answer).
func mcpMount(plans *planclient.Client, d *deps) serve.Mount {
	callerOf := func(r *http.Request) (mcpserver.Caller, bool) {
		c, ok := serve.CallerOf(r.Context())
		return mcpserver.Caller{Identity: c.Identity, Tenants: c.Tenants}, ok
	}
	return serve.Mount{
		Pattern: "/mcp",
		Handler: mcpserver.Handler(plans, callerOf, mcpserver.WithQueryTimeout(d.queryTimeout),
			mcpserver.WithNamespace(d.cfg.Temporal.Namespace)),
		MaxBodyBytes: mcpserver.MaxBodyBytes,
		Timeout:      mcpserver.DefaultCallTimeout + mcpWriteMargin,
		Methods:      []string{http.MethodPost, http.MethodDelete},
	}
}

// mcpWriteMargin is the time an answer has to be written after its call
// took the whole call timeout.
const mcpWriteMargin = 15 * time.Second
