package mcpserver

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/sdk/client"

	"github.com/planmode/planmode/internal/version"
	"github.com/planmode/planmode/planclient"
	"github.com/planmode/planmode/signals"
)

// Plans is what the server asks of planmode's typed client; a
// *planclient.Client is one. Each call is one operation of the contract.
// Temporal answers what the client has no call for: the plans a caller may
// list, a plan's tenant and its details, and a rollback naming its caller.
type Plans interface {
	Start(ctx context.Context, id string, req signals.StartRequest) (client.WorkflowRun, error)
	Standing(ctx context.Context, id string) (planclient.Standing, error)
	Status(ctx context.Context, id string) (enumspb.WorkflowExecutionStatus, error)
	Options(ctx context.Context, id string) (signals.OptionsView, error)
	Plan(ctx context.Context, id string) (signals.PlanView, error)
	Pending(ctx context.Context, id string) (signals.Pending, error)
	Select(ctx context.Context, id string, req signals.SelectOptionRequest) (signals.SelectOptionResponse, error)
	Refine(ctx context.Context, id string, req signals.RefinePlanRequest) (signals.OptionsView, error)
	Answer(ctx context.Context, id string, req signals.AnswerClarificationRequest) (signals.ClarificationResponse, error)
	ConfirmSkip(ctx context.Context, id string, req signals.ConfirmSkipRequest) (signals.ConfirmSkipResponse, error)
	Approve(ctx context.Context, id string, req signals.ApproveToolCallRequest) (signals.ApprovalDecision, error)
	Deny(ctx context.Context, id string, req signals.DenyToolCallRequest) (signals.ApprovalDecision, error)
	RaiseBudget(ctx context.Context, id string, req signals.RaiseBudgetRequest) (signals.RaiseBudgetResponse, error)
	Edit(ctx context.Context, id string, req signals.EditPlanRequest) (signals.EditPlanResponse, error)
	Pause(ctx context.Context, id string, req signals.ControlRequest) (signals.ControlState, error)
	Resume(ctx context.Context, id string, req signals.ControlRequest) (signals.ControlState, error)
	Cancel(ctx context.Context, id string, req ...signals.ControlRequest) error
	Result(ctx context.Context, id string) (signals.Result, error)
	RollbackEnded(ctx context.Context, id, stepID string, force bool) (signals.RollbackPlanResult, error)
	Approvals(ctx context.Context) (planclient.Inbox, error)
	TaskQueue() string
	Temporal() client.Client
}

var _ Plans = (*planclient.Client)(nil)

// Caller is who calls the tools: Identity is the by of every input they
// send (the plan's version history, its rejected inputs and its details
// say who did what); Tenants, when set, are the tenants whose plans the
// caller may see and start. A plan of another tenant does not exist for
// that caller: every tool answers it as it answers an unknown plan.
type Caller struct {
	Identity string
	Tenants  []string
}

// limited reports whether the caller sees only some tenants' plans.
func (c Caller) limited() bool { return len(c.Tenants) > 0 }

// mayUse reports whether the caller may see a plan of tenant.
func (c Caller) mayUse(tenant string) bool { return !c.limited() || slices.Contains(c.Tenants, tenant) }

// Defaults of the Options.
const (
	// DefaultCallTimeout bounds one tool call or resource read: an
	// update waits for the run's answer (a refine for new options from
	// the model) at most this long.
	DefaultCallTimeout = 2 * time.Minute
	// DefaultQueryTimeout bounds one query of a plan that may not answer
	// (its worker busy or gone); past it an answer comes from what
	// Temporal knows of the plan.
	DefaultQueryTimeout = planclient.DefaultQueryTimeout
	// MaxListPlans bounds the plans plan_list answers.
	MaxListPlans = 100
	// MaxScannedPlans bounds the plans plan_list and plan_approvals look
	// at to find a tenant-limited caller's: each costs a describe.
	MaxScannedPlans = 200
)

// Option configures the server.
type Option func(*server)

// WithCaller names who calls the tools (see Caller). The default is
// nobody in particular: inputs carry the Plans client's identity and
// every plan may be used, as a local host's own command line would.
func WithCaller(c Caller) Option { return func(s *server) { s.caller = c } }

// WithCallTimeout bounds each tool call and resource read; zero or less
// keeps DefaultCallTimeout.
func WithCallTimeout(d time.Duration) Option {
	return func(s *server) {
		if d > 0 {
			s.timeout = d
		}
	}
}

// WithQueryTimeout bounds each query of a plan read for a resource or
// plan_status; zero or less keeps DefaultQueryTimeout.
func WithQueryTimeout(d time.Duration) Option {
	return func(s *server) {
		if d > 0 {
			s.queryTimeout = d
		}
	}
}

// WithNamespace names the Temporal namespace the plans run in, whose
// retention is each task's ttl; without it a task's ttl is
// DefaultTaskTTL.
func WithNamespace(name string) Option {
	return func(s *server) { s.retention = &retention{namespace: name} }
}

// stateless marks a server that answers each HTTP request on its own: it
// cannot send a request to the host, so it never elicits.
func stateless() Option { return func(s *server) { s.stateless = true } }

// sessionIDs names each session the server makes over stateful HTTP with
// the next value of next.
func sessionIDs(next func() string) Option { return func(s *server) { s.sessionID = next } }

// server answers the tools, resources and tasks of one caller.
type server struct {
	plans        Plans
	caller       Caller
	timeout      time.Duration
	queryTimeout time.Duration
	// retention is the namespace's, read for the tasks' ttl.
	retention *retention
	stateless bool
	// sessionID names a new session over stateful HTTP; nil: the SDK's.
	sessionID func() string
	// follows are the tasks followed for sessions (notifications).
	follows *follows
}

// Name is the server's name in the MCP handshake.
const Name = "planmode"

// New returns an MCP server whose tools drive plans through plans, one
// tool per operation of the contract, and whose resources read them
// (plan://{id} and plan://{id}/graph). Serve it over any transport: stdio
// for a local host (mcp.StdioTransport), Streamable HTTP with [Handler].
// Every refusal (an invalid input, an unknown plan, the wrong phase, a
// stale approval) is answered as a tool error with the contract's reason,
// never as a protocol error.
func New(plans Plans, opts ...Option) *mcp.Server {
	s := &server{plans: plans, timeout: DefaultCallTimeout, queryTimeout: DefaultQueryTimeout, follows: &follows{}}
	for _, o := range opts {
		o(s)
	}
	srv := mcp.NewServer(&mcp.Implementation{Name: Name, Title: "planmode", Version: version.Version()},
		&mcp.ServerOptions{Instructions: instructions, Capabilities: &mcp.ServerCapabilities{}, GetSessionID: s.sessionID})
	s.addTools(srv)
	s.addResources(srv)
	s.addTasks(srv)
	srv.AddReceivingMiddleware(s.taskMiddleware)
	return srv
}

// instructions tell a host's model how the tools fit together.
const instructions = `planmode runs an agent's plan cycle (clarify, options, select, act, reflect, summarize) as a durable workflow.
Start a plan with plan_start (selection.mode "auto" takes the recommended option at once), then poll plan_status:
standing says where the plan is, pending what it waits for. When it awaits a selection, read plan_options and
answer with plan_select or plan_refine; questions with plan_answer; a proposed skip with plan_confirm_skip; a gated
tool call with plan_approve or plan_deny (the requestId, argsDigest and planVersion pending shows). plan_result
answers once the plan ended. The resource plan://{id} is the plan's details as Markdown, plan://{id}/graph its
steps as a Mermaid flowchart.`

// tool is a tool's description and hints.
type tool struct {
	name, title, description string
	readOnly, destructive    bool
	// idempotent: the same arguments again change nothing more.
	idempotent bool
}

// annotations are t's hints to the host.
func (t tool) annotations() *mcp.ToolAnnotations {
	a := &mcp.ToolAnnotations{Title: t.title, ReadOnlyHint: t.readOnly, IdempotentHint: t.readOnly || t.idempotent}
	if !t.readOnly {
		a.DestructiveHint = new(t.destructive)
	}
	return a
}

// add registers t on srv: its input schema derived from In (fix adjusts
// it), its output schema from Out. A call's arguments are checked on their
// own (check), then the plan they name must be the caller's, then run
// answers within the call timeout. Every error is the call's result, as
// text, with IsError set.
func add[In, Out any](s *server, srv *mcp.Server, t tool, fix func(*jsonschema.Schema), run func(context.Context, In) (Out, error)) {
	in, err := inputSchema[In](fix)
	if err != nil {
		panic(fmt.Sprintf("mcpserver: tool %s: %v", t.name, err))
	}
	out, err := outputSchema[Out]()
	if err != nil {
		panic(fmt.Sprintf("mcpserver: tool %s: %v", t.name, err))
	}
	mcp.AddTool(srv, &mcp.Tool{Name: t.name, Title: t.title, Description: t.description, Annotations: t.annotations(),
		InputSchema: in, OutputSchema: out},
		func(ctx context.Context, _ *mcp.CallToolRequest, args In) (*mcp.CallToolResult, Out, error) {
			var zero Out
			if err := check(args); err != nil {
				return nil, zero, err
			}
			ctx, cancel := context.WithTimeout(ctx, s.timeout)
			defer cancel()
			id := ""
			if r, ok := any(args).(interface{ plan() string }); ok {
				id = r.plan()
				if err := s.visible(ctx, id); err != nil {
					return nil, zero, s.refusal(ctx, id, err)
				}
			}
			v, err := run(ctx, args)
			if err != nil {
				return nil, zero, s.refusal(ctx, id, err)
			}
			return nil, v, nil
		})
}

// noPlanError is the answer for a plan Temporal does not know, and for
// one of a tenant the caller may not see: the two read alike.
type noPlanError struct{ id string }

func (e noPlanError) Error() string { return "no plan " + e.id }

// errNoPlan is the noPlanError of plan id.
func errNoPlan(id string) error { return noPlanError{id: id} }

// refusal is err as the caller reads it: an unknown plan as errNoPlan, a
// call that ran out of time saying so, anything else as the client said
// it (a run's refusal reads "plan p: update pause: rejected: ...").
func (s *server) refusal(ctx context.Context, id string, err error) error {
	switch {
	case err == nil:
		return nil
	case isNotFound(err) && id != "":
		return errNoPlan(id)
	case errors.Is(err, context.DeadlineExceeded) || ctx.Err() != nil:
		return fmt.Errorf("no answer within %s (what was asked may still take effect: look with plan_status): %w", s.timeout, err)
	}
	return err
}

// visible returns nil when the caller may use plan id, and errNoPlan when
// the plan belongs to a tenant the caller does not list. A caller not
// limited to tenants sees every plan without a look.
func (s *server) visible(ctx context.Context, id string) error {
	if !s.caller.limited() {
		return nil
	}
	tenant, err := tenantOf(ctx, s.plans.Temporal(), id)
	if err != nil {
		return err
	}
	if !s.caller.mayUse(tenant) {
		return errNoPlan(id)
	}
	return nil
}

// tenantOf is plan id's tenant as Temporal keeps it: the fairness key its
// client started it with, which is its StartRequest's tenant, or, for a
// plan started without one, the identity of the client that started it.
func tenantOf(ctx context.Context, c client.Client, id string) (string, error) {
	desc, err := c.DescribeWorkflow(ctx, id, "")
	if err != nil {
		return "", fmt.Errorf("plan %s: describe: %w", id, err)
	}
	return desc.RawResponse.GetWorkflowExecutionInfo().GetPriority().GetFairnessKey(), nil
}

// query runs ask, a query of plan id, within the query timeout: a plan
// whose worker is gone or busy does not hold the call. Its refusal then
// says so, and where to look instead.
func query[T any](ctx context.Context, s *server, id string, ask func(context.Context, string) (T, error)) (T, error) {
	qctx, cancel := context.WithTimeout(ctx, s.queryTimeout)
	defer cancel()
	v, err := ask(qctx, id)
	if err != nil && qctx.Err() != nil && ctx.Err() == nil {
		return v, fmt.Errorf("plan %s did not answer its query within %s (no worker polls its task queue, or its worker is busy): %s says how it stands",
			id, s.queryTimeout, ToolStatus)
	}
	return v, err
}
