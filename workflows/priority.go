package workflows

import (
	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"

	"github.com/planmode/planmode/activities"
	"github.com/planmode/planmode/signals"
)

// priorityKey is the context key of a run's task priorities.
type priorityKey struct{}

// priorities are the task priorities of a run's activities: its own
// (clarify, options, summary, snapshots) and its background steps' (step
// work and its reflection), one key lower (signals.StepPriorityKey). The
// fairness key is the request's tenant; without one it is left empty, so
// activities inherit the one the plan was started with (the starting
// client's identity, signals.TaskPriority).
type priorities struct {
	own, step temporal.Priority
}

// withPriorities puts the task priorities of req's plan in ctx. The run's
// own workflow tasks, its continuation's and its children's keep the
// priority the plan was started with (the server and the SDK carry it
// over); setting it here with WithWorkflowPriority would give the run a
// context of options of its own, away from the one its current details
// are read from.
func withPriorities(ctx workflow.Context, req signals.StartRequest) workflow.Context {
	p := priorities{
		own:  temporal.Priority{PriorityKey: signals.PriorityKey(req.Priority), FairnessKey: req.Tenant},
		step: temporal.Priority{PriorityKey: signals.StepPriorityKey(req.Priority), FairnessKey: req.Tenant},
	}
	return workflow.WithValue(ctx, priorityKey{}, p)
}

// ownPriority sets ctx's activity options to the run's own priority.
func ownPriority(ctx workflow.Context) workflow.Context {
	if p, ok := ctx.Value(priorityKey{}).(priorities); ok {
		return workflow.WithPriority(ctx, p.own)
	}
	return ctx
}

// stepPriority sets ctx's activity options to the run's background step
// priority.
func stepPriority(ctx workflow.Context) workflow.Context {
	if p, ok := ctx.Value(priorityKey{}).(priorities); ok {
		return workflow.WithPriority(ctx, p.step)
	}
	return ctx
}

// answerPriority raises a run's workflow tasks one priority key while it
// waits for a person (a selection, answers, a skip confirmation, an
// approval, a resume) and lowers them again once it goes on. The
// workflow task that takes the person's answer is scheduled at the run's
// priority; on a worker busy with executing plans it would otherwise
// queue behind their tasks, which is where an operator's wait went. Each
// change is a PlanPriority local activity, in the workflow task that
// began or ended the wait; a change the server refuses is logged and left.
type answerPriority struct {
	// own is the run's priority: its request's key, and the fairness
	// key and weight it was started with.
	own temporal.Priority
	// raised is what the server was last told, want what the run's wait
	// asks for.
	raised, want bool
}

// newAnswerPriority is the answer priority of a run of req, told by info
// (the priority the run started with, which a continuation started while
// raised carries). The fairness key is the request's tenant, or the one
// the run started with (the starting client's, signals.TaskPriority).
func newAnswerPriority(req signals.StartRequest, info *workflow.Info) *answerPriority {
	own := info.Priority
	own.PriorityKey = signals.PriorityKey(req.Priority)
	if req.Tenant != "" {
		own.FairnessKey = req.Tenant
	}
	return &answerPriority{own: own, raised: info.Priority.PriorityKey != 0 && info.Priority.PriorityKey < own.PriorityKey}
}

// waitFor says what the run waits for now.
func (p *answerPriority) waitFor(awaiting signals.Awaiting) {
	switch awaiting {
	case signals.AwaitingSelection, signals.AwaitingClarification, signals.AwaitingConfirmation,
		signals.AwaitingApproval, signals.AwaitingResume:
		p.want = true
	default:
		p.want = false
	}
}

// start runs the coroutine that tells the server of each change, in a
// context no cancellation reaches.
func (p *answerPriority) start(ctx workflow.Context) {
	ctx, _ = workflow.NewDisconnectedContext(ctx)
	ctx = workflow.WithLocalActivityOptions(ctx, workflow.LocalActivityOptions{
		StartToCloseTimeout: workerStartToClose,
		RetryPolicy:         &temporal.RetryPolicy{MaximumAttempts: 2},
		Summary:             "task priority while the plan waits for a person",
	})
	workflow.Go(ctx, func(ctx workflow.Context) {
		for {
			if err := workflow.Await(ctx, func() bool { return p.want != p.raised }); err != nil {
				return
			}
			want, in := p.want, p.input(p.want)
			// A critical plan has no key above its own: nothing to ask.
			if in != p.input(p.raised) {
				if err := workflow.ExecuteLocalActivity(ctx, a.PlanPriority, in).Get(ctx, nil); err != nil {
					workflow.GetLogger(ctx).Warn("task priority not changed", "key", in.Key, "error", err)
				}
			}
			p.raised = want
		}
	})
}

// input is the priority to ask for: the run's own, one key higher when
// raised (never past the critical key).
func (p *answerPriority) input(raised bool) activities.PlanPriorityInput {
	key := p.own.PriorityKey
	if raised {
		key = max(key-1, signals.PriorityKeyCritical)
	}
	return activities.PlanPriorityInput{Key: key, FairnessKey: p.own.FairnessKey, FairnessWeight: p.own.FairnessWeight}
}
