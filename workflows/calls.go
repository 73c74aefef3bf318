package workflows

import (
	"context"
	"time"

	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"

	"github.com/planmode/planmode/activities"
	"github.com/planmode/planmode/plan"
	"github.com/planmode/planmode/signals"
)

// a is the method-reference receiver for activities: the workflow never
// calls an activity by a string name, so a renamed method or a changed
// input type breaks the build, not a running workflow.
var a activities.Set

// Activity timeouts and retries.
const (
	llmStartToClose    = 2 * time.Minute
	toolStartToClose   = 10 * time.Minute
	notifyStartToClose = 30 * time.Second
	// workerStartToClose bounds the local activities that read what the
	// worker holds in memory or its configuration (GoalAttr, Receiver,
	// RecordTools).
	workerStartToClose = 10 * time.Second
	activityAttempts   = 5
	activityFirstWait  = time.Second
	activityMaxWait    = time.Minute
)

// retryPolicy is shared by every activity. Which errors are permanent is
// left to the activities: they return non-retryable application errors.
var retryPolicy = &temporal.RetryPolicy{
	InitialInterval:    activityFirstWait,
	BackoffCoefficient: 2,
	MaximumInterval:    activityMaxWait,
	MaximumAttempts:    activityAttempts,
}

// heartbeatKey is the workflow context key under which a run keeps its
// heartbeat timeout (execution.heartbeatTimeout).
type heartbeatKey struct{}

// withHeartbeatTimeout returns ctx carrying d as the heartbeat timeout of
// the LLM and tool activities scheduled under it. The run sets it once, so
// the many call sites need not pass the policy along.
func withHeartbeatTimeout(ctx workflow.Context, d time.Duration) workflow.Context {
	return workflow.WithValue(ctx, heartbeatKey{}, d)
}

// heartbeatTimeout returns the heartbeat timeout ctx carries, the default
// when it carries none.
func heartbeatTimeout(ctx workflow.Context) time.Duration {
	if d, ok := ctx.Value(heartbeatKey{}).(time.Duration); ok && d > 0 {
		return d
	}
	return signals.DefaultHeartbeatTimeout.D()
}

// carryHeartbeat adapts an update handler: Temporal runs update handlers
// in the workflow's root context, which lacks the values the run put in
// from, so the handler gets from's heartbeat timeout and task priorities
// back.
func carryHeartbeat[Req, Resp any](from workflow.Context, apply func(workflow.Context, Req) (Resp, error)) func(workflow.Context, Req) (Resp, error) {
	d := heartbeatTimeout(from)
	p, hasP := from.Value(priorityKey{}).(priorities)
	return func(ctx workflow.Context, req Req) (Resp, error) {
		ctx = withHeartbeatTimeout(ctx, d)
		if hasP {
			ctx = workflow.WithValue(ctx, priorityKey{}, p)
		}
		return apply(ctx, req)
	}
}

// workerCtx returns ctx with the options of a local activity that reads
// what the worker holds (workerStartToClose): it runs in the workflow task,
// and its answer is one marker event.
func workerCtx(ctx workflow.Context, summary string) workflow.Context {
	return workflow.WithLocalActivityOptions(ctx, workflow.LocalActivityOptions{
		StartToCloseTimeout: workerStartToClose,
		RetryPolicy:         retryPolicy,
		Summary:             summary,
	})
}

// heartbeatCtx returns ctx with the options of an LLM or tool activity
// (startToClose is llmStartToClose or toolStartToClose) and a summary the
// UI shows for it. Both heartbeat while they work, so a cancellation
// reaches them and a lost worker is noticed within the run's heartbeat
// timeout.
func heartbeatCtx(ctx workflow.Context, startToClose time.Duration, summary string) workflow.Context {
	return workflow.WithActivityOptions(ctx, workflow.ActivityOptions{
		StartToCloseTimeout: startToClose,
		HeartbeatTimeout:    heartbeatTimeout(ctx),
		RetryPolicy:         retryPolicy,
		WaitForCancellation: true,
		Summary:             summary,
	})
}

// call runs the activity fn with a typed input and output; ctx carries the
// activity options.
func call[In, Out any](ctx workflow.Context, fn func(context.Context, In) (Out, error), in In) (Out, error) {
	var out Out
	err := workflow.ExecuteActivity(ctx, fn, in).Get(ctx, &out)
	return out, err
}

func clarify(ctx workflow.Context, in activities.ClarifyInput, summary string) (activities.ClarifyOutput, error) {
	return call(ownPriority(heartbeatCtx(ctx, llmStartToClose, summary)), a.Clarify, in)
}

func generateOptions(ctx workflow.Context, in activities.OptionsInput, summary string) (activities.OptionsOutput, error) {
	return call(ownPriority(heartbeatCtx(ctx, llmStartToClose, summary)), a.GenerateOptions, in)
}

func executeLLMStep(ctx workflow.Context, in activities.StepInput, summary string) (plan.StepResult, error) {
	return call(stepPriority(heartbeatCtx(ctx, llmStartToClose, summary)), a.ExecuteLLMStep, in)
}

func agentTurn(ctx workflow.Context, in activities.AgentTurnInput, summary string) (activities.AgentTurnOutput, error) {
	return call(stepPriority(heartbeatCtx(ctx, llmStartToClose, summary)), a.AgentTurn, in)
}

func reflect(ctx workflow.Context, in activities.ReflectInput, summary string) (plan.Reflection, error) {
	return call(stepPriority(heartbeatCtx(ctx, llmStartToClose, summary)), a.Reflect, in)
}

func summarize(ctx workflow.Context, in activities.SummarizeInput, summary string) (activities.SummarizeOutput, error) {
	return call(ownPriority(heartbeatCtx(ctx, llmStartToClose, summary)), a.Summarize, in)
}

func runTool(ctx workflow.Context, in activities.ToolInput, summary string) (activities.ToolOutput, error) {
	return call(stepPriority(heartbeatCtx(ctx, toolStartToClose, summary)), a.RunTool, in)
}

func snapshotWorkspace(ctx workflow.Context, in activities.SnapshotInput, summary string) (activities.SnapshotOutput, error) {
	return call(ownPriority(heartbeatCtx(ctx, toolStartToClose, summary)), a.SnapshotWorkspace, in)
}

func restoreWorkspace(ctx workflow.Context, in activities.RestoreInput, summary string) (activities.RestoreOutput, error) {
	return call(ownPriority(heartbeatCtx(ctx, toolStartToClose, summary)), a.RestoreWorkspace, in)
}
