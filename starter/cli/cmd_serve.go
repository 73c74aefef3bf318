package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"iter"
	"net"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"go.temporal.io/api/serviceerror"

	"github.com/planmode/planmode/internal/config"
	"github.com/planmode/planmode/planclient"
	"github.com/planmode/planmode/serve"
	"github.com/planmode/planmode/signals"
)

func newServeCmd(d *deps) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "serve",
		Short: "Serve plans' events and state over HTTP, for the CLI, services and browsers",
		Long: `serve answers, over HTTP, for the plans on Temporal:
  GET /plans/{id}/events   the plan's event log as Server-Sent Events (resume with Last-Event-ID or ?after=N)
  GET /plans/{id}          the plan's state as JSON
  GET /healthz             200 while the server runs (no token)
Every request but /healthz carries "Authorization: Bearer TOKEN" with a token of serve.tokensFile,
one a line: TOKEN IDENTITY [TENANT,...]; a token that lists tenants sees only their plans. The file
is read again when it changes. The server listens on 127.0.0.1:8088 unless serve.listen says
otherwise, refuses browsers of origins not in serve.allowedOrigins and serves at most
serve.maxConnections requests at once. It keeps no state: run as many as you like. It runs until
interrupted; see docs/serve.md.`,
		Example: `  planmode serve --tokens-file ./tokens
  curl -N -H "Authorization: Bearer $TOKEN" http://127.0.0.1:8088/plans/plan-42/events`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return runServe(cmd.Context(), d)
		},
	}
	config.AddServeFlags(cmd.Flags())
	return cmd
}

// runServe checks the tokens file, dials Temporal and serves until ctx
// ends. A missing or malformed tokens file is refused before anything
// else: a server that would refuse every request is no server.
func runServe(ctx context.Context, d *deps) error {
	cfg := d.cfg.Serve
	if cfg.TokensFile == "" {
		return rejectf(fmt.Sprintf("serve needs tokens: set %s (%s, or --%s) to a file of lines TOKEN IDENTITY [TENANT,...]",
			config.KeyServeTokensFile, config.EnvName(config.KeyServeTokensFile), config.FlagTokensFile))
	}
	toks, err := serve.ReadTokens(cfg.TokensFile)
	if err != nil {
		return rejectf(err.Error())
	}
	plans, err := d.plans(ctx)
	if err != nil {
		return err
	}
	ln, err := net.Listen("tcp", cfg.Listen)
	if err != nil {
		return fmt.Errorf("serve: %w", err)
	}
	announceServe(d.out, d.errOut, ln.Addr().String(), toks.Len(), cfg.AllowedOrigins)
	srv := serve.New(serve.Config{
		Listen:         cfg.Listen,
		TokensFile:     cfg.TokensFile,
		AllowedOrigins: cfg.AllowedOrigins,
		MaxConnections: cfg.MaxConnections,
		Heartbeat:      cfg.Heartbeat,
	}, &planSource{plans: plans, queryTimeout: d.queryTimeout}, serve.WithLogger(d.cfg.Log.NewLogger(d.errOut)),
		serve.WithMount(mcpMount(plans, d)))
	return srv.Serve(ctx, ln)
}

// announceServe tells the operator on out where the server listens; the
// first line holds the URL, which scripts and tests read. It warns on
// errOut when the server listens beyond this host.
func announceServe(out, errOut io.Writer, addr string, tokens int, origins []string) {
	fmt.Fprintf(out, "planmode serve listening on http://%s\n", addr)
	fmt.Fprintf(out, "  %d tokens; events: curl -N -H \"Authorization: Bearer $TOKEN\" http://%s/plans/PLAN/events\n", tokens, addr)
	if len(origins) > 0 {
		fmt.Fprintf(out, "  browser origins: %s\n", strings.Join(origins, ", "))
	}
	if host, _, _ := net.SplitHostPort(addr); !isLoopback(host) {
		fmt.Fprintf(errOut, "planmode: note: serve listens beyond this host on %s: put TLS in front of it (docs/serve.md)\n", addr)
	}
}

// planSource is serve's Source over the plan client: the events, the
// state and the tenant from what Temporal and the plan answer.
type planSource struct {
	plans        *planclient.Client
	queryTimeout time.Duration
}

// Follow follows the plan's event log (planclient.Client.Events), marking
// a plan Temporal does not know as serve.ErrUnknownPlan.
func (s *planSource) Follow(ctx context.Context, planID string, after int64) iter.Seq2[signals.Event, error] {
	return func(yield func(signals.Event, error) bool) {
		for e, err := range s.plans.Events(ctx, planID, after) {
			if err != nil {
				yield(e, unknownPlan(err))
				return
			}
			if !yield(e, nil) {
				return
			}
		}
	}
}

// State answers what `planmode show --output json` prints of the plan:
// how it stands, and its progress, options, plan and what it waits for
// when it answers its queries within the query timeout.
func (s *planSource) State(ctx context.Context, planID string) (json.RawMessage, error) {
	st, err := state(ctx, s.plans, s.queryTimeout, planID)
	if err != nil {
		return nil, unknownPlan(err)
	}
	return json.Marshal(st)
}

// Tenant answers the plan's tenant as Temporal keeps it: the fairness key
// its client started it with, which is its StartRequest's tenant, or,
// for a plan started without one, the identity of the client that
// started it (signals.TaskPriority). A token limited to tenants therefore
// sees only plans started for one of them.
func (s *planSource) Tenant(ctx context.Context, planID string) (string, error) {
	desc, err := s.plans.Temporal().DescribeWorkflow(ctx, planID, "")
	if err != nil {
		return "", unknownPlan(fmt.Errorf("plan %s: describe: %w", planID, err))
	}
	return desc.RawResponse.GetWorkflowExecutionInfo().GetPriority().GetFairnessKey(), nil
}

// unknownPlan marks Temporal's "not found" as serve.ErrUnknownPlan.
func unknownPlan(err error) error {
	var nf *serviceerror.NotFound
	if errors.As(err, &nf) {
		return fmt.Errorf("%w: %w", serve.ErrUnknownPlan, err)
	}
	return err
}
