package workflows

import (
	"context"
	"time"

	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"

	"github.com/planmode/planmode/activities"
	"github.com/planmode/planmode/plan"
)

// a is the method-reference receiver for activities: the workflow never
// calls an activity by a string name, so a renamed method or a changed
// input type breaks the build, not a running workflow.
var a *activities.Activities

// Activity timeouts and retries.
const (
	llmStartToClose    = 2 * time.Minute
	llmHeartbeat       = 30 * time.Second
	toolStartToClose   = 10 * time.Minute
	toolHeartbeat      = 30 * time.Second
	notifyStartToClose = 30 * time.Second
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

// llmCtx returns ctx with the options of an LLM activity and a summary the
// UI shows for it. LLM activities heartbeat while the model answers, so a
// cancellation reaches them and a lost worker is noticed early.
func llmCtx(ctx workflow.Context, summary string) workflow.Context {
	return workflow.WithActivityOptions(ctx, workflow.ActivityOptions{
		StartToCloseTimeout: llmStartToClose,
		HeartbeatTimeout:    llmHeartbeat,
		RetryPolicy:         retryPolicy,
		WaitForCancellation: true,
		Summary:             summary,
	})
}

// toolCtx returns ctx with the options of a tool activity: a long
// start-to-close timeout and heartbeats, through which a cancellation
// reaches the running tool.
func toolCtx(ctx workflow.Context, summary string) workflow.Context {
	return workflow.WithActivityOptions(ctx, workflow.ActivityOptions{
		StartToCloseTimeout: toolStartToClose,
		HeartbeatTimeout:    toolHeartbeat,
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
	return call(llmCtx(ctx, summary), a.Clarify, in)
}

func generateOptions(ctx workflow.Context, in activities.OptionsInput, summary string) (activities.OptionsOutput, error) {
	return call(llmCtx(ctx, summary), a.GenerateOptions, in)
}

func executeLLMStep(ctx workflow.Context, in activities.StepInput, summary string) (plan.StepResult, error) {
	return call(llmCtx(ctx, summary), a.ExecuteLLMStep, in)
}

func agentTurn(ctx workflow.Context, in activities.AgentTurnInput, summary string) (activities.AgentTurnOutput, error) {
	return call(llmCtx(ctx, summary), a.AgentTurn, in)
}

func reflect(ctx workflow.Context, in activities.ReflectInput, summary string) (plan.Reflection, error) {
	return call(llmCtx(ctx, summary), a.Reflect, in)
}

func summarize(ctx workflow.Context, in activities.SummarizeInput, summary string) (activities.SummarizeOutput, error) {
	return call(llmCtx(ctx, summary), a.Summarize, in)
}

func runTool(ctx workflow.Context, in activities.ToolInput, summary string) (activities.ToolOutput, error) {
	return call(toolCtx(ctx, summary), a.RunTool, in)
}

func snapshotWorkspace(ctx workflow.Context, in activities.SnapshotInput, summary string) (activities.SnapshotOutput, error) {
	return call(toolCtx(ctx, summary), a.SnapshotWorkspace, in)
}

func notifyWebhook(ctx workflow.Context, in activities.NotifyInput, summary string) (activities.NotifyOutput, error) {
	ctx = workflow.WithActivityOptions(ctx, workflow.ActivityOptions{
		StartToCloseTimeout: notifyStartToClose,
		RetryPolicy:         retryPolicy,
		Summary:             summary,
	})
	return call(ctx, a.Notify, in)
}

func restoreWorkspace(ctx workflow.Context, in activities.RestoreInput, summary string) (activities.RestoreOutput, error) {
	return call(toolCtx(ctx, summary), a.RestoreWorkspace, in)
}
