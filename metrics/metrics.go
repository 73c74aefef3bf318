// Package metrics names planmode's own metrics and records them through
// the Temporal SDK's metrics handler, so that they land in the same
// registry as the SDK's temporal_ series.
//
// # Where to record
//
// Workflow code passes [workflow.GetMetricsHandler](ctx): that handler
// records nothing while the workflow replays, so a metric counts an event
// once however often its history is replayed. Activity code passes
// [activity.GetMetricsHandler](ctx). Both handlers carry the SDK's tags
// (namespace, task_queue, workflow_type, and activity_type for activities).
// Prometheus wants one label set per metric name, so record each metric
// from one kind of context only: the plan and step metrics from the
// workflow, and the LLM, webhook and command metrics from the activities
// that make the calls.
//
// # Names
//
// The names below are what the code records. The Prometheus endpoint
// follows OpenMetrics naming: counters get _total and timers (histograms)
// _seconds, so [PlansStarted] is scraped as planmode_plans_started_total
// and [StepDuration] as planmode_step_duration_seconds.
//
// [workflow.GetMetricsHandler]: https://pkg.go.dev/go.temporal.io/sdk/workflow#GetMetricsHandler
// [activity.GetMetricsHandler]: https://pkg.go.dev/go.temporal.io/sdk/activity#GetMetricsHandler
package metrics

import (
	"math"
	"time"

	"go.temporal.io/sdk/client"
)

// Metric names.
const (
	// PlansStarted counts plans that began running (the first run, not a
	// continue-as-new).
	PlansStarted = "planmode_plans_started"
	// PlansFinished counts plans that ended, by [TagStatus].
	PlansFinished = "planmode_plans_finished"
	// Steps counts steps that ended, by [TagAction] and [TagStatus].
	Steps = "planmode_steps"
	// StepDuration is how long a step took, by [TagAction] and [TagStatus].
	StepDuration = "planmode_step_duration"
	// LLMCallDuration is how long one model call took, by [TagPhase] and
	// [TagModel].
	LLMCallDuration = "planmode_llm_call_duration"
	// LLMTokens counts tokens, by [TagPhase], [TagModel] and [TagKind].
	LLMTokens = "planmode_llm_tokens"
	// LLMCostMicroUSD counts spending in millionths of a US dollar, by
	// [TagPhase] and [TagModel]: the SDK's counters are integers, and a
	// cent would be too coarse for one call.
	LLMCostMicroUSD = "planmode_llm_cost_microusd"
	// WebhookDeliveries counts webhook deliveries, by [TagOutcome].
	WebhookDeliveries = "planmode_webhook_deliveries"
	// CommandsRun counts commands the tools ran, by [TagOutcome].
	CommandsRun = "planmode_commands_run"
)

// Tag (label) keys.
const (
	TagStatus  = "status"
	TagAction  = "action"
	TagPhase   = "phase"
	TagModel   = "model"
	TagKind    = "kind"
	TagOutcome = "outcome"
)

// Values of [TagKind].
const (
	KindInput  = "input"
	KindOutput = "output"
)

// Values of [TagOutcome]; a caller may use others, from a short fixed set.
const (
	OutcomeOK      = "ok"
	OutcomeFailed  = "failed"
	OutcomeTimeout = "timeout"
	OutcomeRefused = "refused"
)

// PlanStarted counts a plan that began running. A nil h records nothing,
// as do all the functions here.
func PlanStarted(h client.MetricsHandler) {
	if h == nil {
		return
	}
	h.Counter(PlansStarted).Inc(1)
}

// PlanFinished counts a plan that ended with status (the Result's:
// completed, failed, cancelled, answered).
func PlanFinished(h client.MetricsHandler, status string) {
	if h == nil {
		return
	}
	h.WithTags(map[string]string{TagStatus: status}).Counter(PlansFinished).Inc(1)
}

// StepFinished counts a step of action (llm, tool, agent) that ended
// with status (completed, failed, skipped) after d.
func StepFinished(h client.MetricsHandler, action, status string, d time.Duration) {
	if h == nil {
		return
	}
	t := h.WithTags(map[string]string{TagAction: action, TagStatus: status})
	t.Counter(Steps).Inc(1)
	t.Timer(StepDuration).Record(d)
}

// LLMCall is one model call as [RecordLLMCall] records it.
type LLMCall struct {
	Phase        string
	Model        string
	Duration     time.Duration
	InputTokens  int64
	OutputTokens int64
	CostUSD      float64
}

// RecordLLMCall records the duration, tokens and cost of one model call.
// Zero tokens and cost add nothing.
func RecordLLMCall(h client.MetricsHandler, c LLMCall) {
	if h == nil {
		return
	}
	t := h.WithTags(map[string]string{TagPhase: c.Phase, TagModel: c.Model})
	t.Timer(LLMCallDuration).Record(c.Duration)
	if c.InputTokens > 0 {
		t.WithTags(map[string]string{TagKind: KindInput}).Counter(LLMTokens).Inc(c.InputTokens)
	}
	if c.OutputTokens > 0 {
		t.WithTags(map[string]string{TagKind: KindOutput}).Counter(LLMTokens).Inc(c.OutputTokens)
	}
	if micros := int64(math.Round(c.CostUSD * 1e6)); micros > 0 {
		t.Counter(LLMCostMicroUSD).Inc(micros)
	}
}

// WebhookDelivered counts a webhook delivery with outcome (ok, failed).
func WebhookDelivered(h client.MetricsHandler, outcome string) {
	if h == nil {
		return
	}
	h.WithTags(map[string]string{TagOutcome: outcome}).Counter(WebhookDeliveries).Inc(1)
}

// CommandRan counts a command a tool ran with outcome (ok for exit code
// 0, failed, timeout, refused by the allowlist).
func CommandRan(h client.MetricsHandler, outcome string) {
	if h == nil {
		return
	}
	h.WithTags(map[string]string{TagOutcome: outcome}).Counter(CommandsRun).Inc(1)
}
