package planclient

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/google/uuid"
	commonpb "go.temporal.io/api/common/v1"
	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/api/workflowservice/v1"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/converter"

	"github.com/planmode/planmode/plan"
	"github.com/planmode/planmode/signals"
)

// Client is planmode's typed client for other Go services: every operation
// of the wire contract is one call that sends the contract's name with its
// typed payload and decodes the typed answer. It wraps a Temporal client,
// which it does not own: close that one yourself.
//
// Inputs travel as updates, so a bad input comes back as the workflow
// validator's error and changes nothing: a non-retryable application
// error whose type is one of [signals.RejectionTypes] (read it with
// [signals.RejectionType]), in which errors.Is finds [signals.ErrRejected].
// Every error of a call on a plan is wrapped once, here: its message is
// "plan <id>: ", what was asked and the cause, a refusal reading as the
// run wrote it ("plan p: update pause: rejected: already paused") without
// the SDK's decorations; errors.As still finds the SDK's errors under it.
// Callers that want fire-and-forget signals use the [signals.Handler]
// definitions with [Client.Temporal].
type Client struct {
	c            client.Client
	taskQueue    string
	identity     string
	queryTimeout time.Duration
	dc           converter.DataConverter
	namespace    string
}

// Option configures a Client.
type Option func(*Client)

// WithNamespace names the namespace the Temporal client was dialled with
// (client.Options.Namespace), which [Client.Events] reads histories in;
// the default is "default", an empty name keeps it.
func WithNamespace(name string) Option {
	return func(c *Client) {
		if name != "" {
			c.namespace = name
		}
	}
}

// WithTaskQueue sets the task queue plans are started on. The default is
// [signals.DefaultTaskQueue]; an empty name keeps it.
func WithTaskQueue(name string) Option {
	return func(c *Client) {
		if name != "" {
			c.taskQueue = name
		}
	}
}

// WithIdentity names the caller in every input the Client sends (the
// payloads' by field, when the caller left it empty), so the plan's
// version history, rejected inputs and details say who did what. Pass
// the client.Options.Identity the Temporal client was dialled with. The
// default is none: the run records "user".
func WithIdentity(identity string) Option {
	return func(c *Client) { c.identity = plan.TruncateBytes(identity, signals.MaxCallerBytes) }
}

// by is the caller to record: by as given, or the Client's identity.
func (c *Client) by(by string) string {
	if by == "" {
		return c.identity
	}
	return by
}

// New returns a Client that talks through c.
func New(c client.Client, opts ...Option) *Client {
	pc := &Client{c: c, taskQueue: signals.DefaultTaskQueue, queryTimeout: DefaultQueryTimeout, namespace: "default"}
	for _, o := range opts {
		o(pc)
	}
	return pc
}

// Temporal returns the wrapped Temporal client.
func (c *Client) Temporal() client.Client { return c.c }

// TaskQueue returns the task queue plans are started on.
func (c *Client) TaskQueue() string { return c.taskQueue }

// Start starts a plan for req under workflow id id ("plan-" and a UUID
// when empty). The run carries the goal as its static summary and the
// request as markdown static details, which the Web UI shows. It returns an
// error, changing nothing, when req is invalid or a run with id is open
// (errors.As finds a *serviceerror.WorkflowExecutionAlreadyStarted).
func (c *Client) Start(ctx context.Context, id string, req signals.StartRequest) (client.WorkflowRun, error) {
	checked, err := CheckStart(req)
	if err != nil {
		return nil, wrap(id, err)
	}
	return c.StartChecked(ctx, id, checked)
}

// StartChecked is Start for a request CheckStart validated already, so
// that a caller who refuses bad input before it dials (the CLI) does not
// validate it twice.
func (c *Client) StartChecked(ctx context.Context, id string, req Checked) (client.WorkflowRun, error) {
	if id == "" {
		id = "plan-" + uuid.NewString()
	}
	opts := c.startWorkflow(id, req.req)
	opts.WorkflowExecutionErrorWhenAlreadyStarted = true
	run, err := c.c.ExecuteWorkflow(ctx, opts, signals.WorkflowType, req.req)
	if err != nil {
		return nil, wrap(id, fmt.Errorf("start: %w", err))
	}
	return run, nil
}

// Checked is a start request CheckStart validated: the client side's one
// check, before anything dials. The workflow checks it again when it
// starts, since other clients may send anything.
type Checked struct{ req signals.StartRequest }

// Request returns the checked request.
func (c Checked) Request() signals.StartRequest { return c.req }

// CheckStart validates req, its size as JSON included: a request the
// workflow would refuse, or one so large the server would, is refused
// before anything starts. Its error is marked signals.ErrRejected.
func CheckStart(req signals.StartRequest) (Checked, error) {
	if err := req.Validate(); err != nil {
		return Checked{}, fmt.Errorf("start: %w: %w", signals.ErrRejected, err)
	}
	return Checked{req: req}, nil
}

// StartAndGetOptions starts a plan for req under workflow id id and waits
// until its options exist, in one Update-with-Start call: the
// [signals.AwaitOptions] update reaches the run in its first workflow task, so no
// option is missed and nothing is polled. When a run with id is already
// open it waits on that one instead, so a caller may retry safely. It
// returns an error when id is empty, req is invalid, the open run with id
// has passed selection already, or ctx ends first. A new run always
// answers, even with auto selection: the update is accepted before the run
// selects.
func (c *Client) StartAndGetOptions(ctx context.Context, id string, req signals.StartRequest) (signals.OptionsView, error) {
	var out signals.OptionsView
	if id == "" {
		return out, errors.New("start plan: a workflow id is required to wait for the options")
	}
	if _, err := CheckStart(req); err != nil {
		return out, wrap(id, err)
	}
	opts := c.startWorkflow(id, req)
	opts.WorkflowIDConflictPolicy = enumspb.WORKFLOW_ID_CONFLICT_POLICY_USE_EXISTING
	start := c.c.NewWithStartWorkflowOperation(opts, signals.WorkflowType, req)
	h, err := c.c.UpdateWithStartWorkflow(ctx, client.UpdateWithStartWorkflowOptions{
		StartWorkflowOperation: start,
		UpdateOptions: client.UpdateWorkflowOptions{
			UpdateName:   signals.AwaitOptions.Name,
			Args:         []any{signals.AwaitOptionsRequest{}},
			WaitForStage: client.WorkflowUpdateStageCompleted,
		},
	})
	if err != nil {
		return out, wrap(id, fmt.Errorf("start and %s: %w", signals.AwaitOptions.Name, err))
	}
	if err := h.Get(ctx, &out); err != nil {
		return out, wrap(id, fmt.Errorf("%s: %w", signals.AwaitOptions.Name, err))
	}
	return out, nil
}

// startWorkflow returns the settings to start the checked request req
// under id.
func (c *Client) startWorkflow(id string, req signals.StartRequest) client.StartWorkflowOptions {
	return client.StartWorkflowOptions{
		ID:            id,
		TaskQueue:     c.taskQueue,
		StaticSummary: signals.StaticSummary(req.Goal),
		StaticDetails: StaticDetails(req),
		Memo:          map[string]any{signals.MemoGoal: req.Goal},
		// The plan's workflow tasks take this priority (its activities
		// get theirs from the request): the tenant, else this client's
		// identity, is the fairness key (docs/operations.md).
		Priority: signals.TaskPriority(req, c.identity),
	}
}

// Select picks an option of plan id and answers the selected option.
func (c *Client) Select(ctx context.Context, id string, req signals.SelectOptionRequest) (signals.SelectOptionResponse, error) {
	req.By = c.by(req.By)
	v, err := signals.SelectOption.Update(ctx, c.c, id, req)
	return v, wrap(id, err)
}

// Refine asks plan id for new options from feedback and answers them.
func (c *Client) Refine(ctx context.Context, id string, req signals.RefinePlanRequest) (signals.OptionsView, error) {
	req.By = c.by(req.By)
	v, err := signals.RefinePlan.Update(ctx, c.c, id, req)
	return v, wrap(id, err)
}

// Answer answers the clarifying questions of plan id.
func (c *Client) Answer(ctx context.Context, id string, req signals.AnswerClarificationRequest) (signals.ClarificationResponse, error) {
	req.By = c.by(req.By)
	v, err := signals.AnswerClarification.Update(ctx, c.c, id, req)
	return v, wrap(id, err)
}

// ConfirmSkip approves or denies a skip plan id proposed (see [Client.Pending]).
func (c *Client) ConfirmSkip(ctx context.Context, id string, req signals.ConfirmSkipRequest) (signals.ConfirmSkipResponse, error) {
	req.By = c.by(req.By)
	v, err := signals.ConfirmSkip.Update(ctx, c.c, id, req)
	return v, wrap(id, err)
}

// Edit edits the plan of plan id and answers the new plan version.
func (c *Client) Edit(ctx context.Context, id string, req signals.EditPlanRequest) (signals.EditPlanResponse, error) {
	req.By = c.by(req.By)
	v, err := signals.EditPlan.Update(ctx, c.c, id, req)
	return v, wrap(id, err)
}

// Pause pauses plan id at its next step boundary and answers its state.
func (c *Client) Pause(ctx context.Context, id string, req signals.ControlRequest) (signals.ControlState, error) {
	req.By = c.by(req.By)
	v, err := signals.Pause.Update(ctx, c.c, id, req)
	return v, wrap(id, err)
}

// Resume resumes paused plan id and answers its state.
func (c *Client) Resume(ctx context.Context, id string, req signals.ControlRequest) (signals.ControlState, error) {
	req.By = c.by(req.By)
	v, err := signals.Resume.Update(ctx, c.c, id, req)
	return v, wrap(id, err)
}

// Cancel asks plan id to stop through Temporal cancellation: it cancels
// its running work, writes a partial summary and ends Canceled with its
// Result. It returns once the request is recorded; [Client.Result] waits
// for the end and answers the Result.
//
// req, when given (one at most), names who asks (By, else the Client's
// identity, else "user") and why (Reason): the request carries them to
// Temporal, whose WorkflowExecutionCancelRequested event in the plan's
// history records them as its identity and cause. It is sent in the
// Client's namespace (see [WithNamespace]).
func (c *Client) Cancel(ctx context.Context, id string, req ...signals.ControlRequest) error {
	var r signals.ControlRequest
	if len(req) > 0 {
		r = req[0]
	}
	_, err := c.c.WorkflowService().RequestCancelWorkflowExecution(ctx, &workflowservice.RequestCancelWorkflowExecutionRequest{
		Namespace:         c.namespace,
		WorkflowExecution: &commonpb.WorkflowExecution{WorkflowId: id},
		Identity:          string(signals.Caller(plan.TruncateBytes(c.by(r.By), signals.MaxCallerBytes))),
		RequestId:         uuid.NewString(),
		Reason:            plan.TruncateBytes(r.Reason, signals.MaxTextBytes),
	})
	if err != nil {
		return wrap(id, fmt.Errorf("cancel: %w", err))
	}
	return nil
}

// Rollback restores the workspace of plan id as it was before execution and
// answers what came back.
func (c *Client) Rollback(ctx context.Context, id, stepID string) (signals.RollbackResponse, error) {
	v, err := signals.Rollback.Update(ctx, c.c, id, signals.RollbackRequest{StepID: stepID, By: c.identity})
	return v, wrap(id, err)
}

// Progress answers how plan id progresses, without a workflow task when
// it can: a run no worker has picked up yet stands at its start (no
// phase); while the plan runs, from its event log (loggedProgress: the
// newest progress the log carries, brought forward with the events
// written since); once it has closed with a Result,
// what that Result says (closedProgress). The progress query answers a
// run whose log does not carry it.
func (c *Client) Progress(ctx context.Context, id string) (signals.Progress, error) {
	desc, err := c.c.DescribeWorkflow(ctx, id, "")
	if err != nil {
		return signals.Progress{}, wrap(id, fmt.Errorf("describe: %w", err))
	}
	info := desc.RawResponse.GetWorkflowExecutionInfo()
	if p, ok := c.closedProgress(ctx, id, info.GetStatus()); ok {
		return p, nil
	}
	if queued(desc.RawResponse) {
		// No worker has run it yet: it stands where it started, as its
		// first task would say.
		start := info.GetStartTime().AsTime()
		return signals.Progress{StartedAt: start, Elapsed: plan.Duration(time.Since(start))}, nil
	}
	if p, ok := c.loggedProgress(ctx, id, info); ok {
		return p, nil
	}
	v, err := signals.ProgressQuery.Get(ctx, c.c, id)
	return v, wrap(id, err)
}

// Plan answers the plan query of plan id.
func (c *Client) Plan(ctx context.Context, id string) (signals.PlanView, error) {
	v, err := signals.PlanQuery.Get(ctx, c.c, id)
	return v, wrap(id, err)
}

// Options answers the options query of plan id.
func (c *Client) Options(ctx context.Context, id string) (signals.OptionsView, error) {
	v, err := signals.OptionsQuery.Get(ctx, c.c, id)
	return v, wrap(id, err)
}

// Pending answers the pending query of plan id.
func (c *Client) Pending(ctx context.Context, id string) (signals.Pending, error) {
	v, err := signals.PendingQuery.Get(ctx, c.c, id)
	return v, wrap(id, err)
}

// Result waits until plan id ends, following its continue-as-new chain,
// and answers its Result, whichever way it ended: completed (or answered),
// failed (Temporal's status Failed, the Result in the [signals.ErrorTypePlanFailed]
// error's details) or cancelled (status Canceled, the Result in the
// cancellation's details). Check Result.Status. It returns an error only
// when the plan ended without a Result (terminated, timed out, an invalid
// request, cancelled before any worker ran it) or when ctx ends first.
func (c *Client) Result(ctx context.Context, id string) (signals.Result, error) {
	var out signals.Result
	err := c.c.GetWorkflow(ctx, id, "").Get(ctx, &out)
	if err == nil {
		return out, nil
	}
	if res, ok := signals.ResultFromError(err); ok {
		return res, nil
	}
	return out, wrap(id, fmt.Errorf("result: %w", err))
}
