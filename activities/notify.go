package activities

import (
	"context"
	"errors"
	"fmt"
	"time"

	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/temporal"

	"github.com/planmode/planmode/metrics"
	"github.com/planmode/planmode/plan"
	"github.com/planmode/planmode/webhook"
)

// Notices carries what the activities that tell the world outside need.
type Notices struct {
	// Webhook delivers Notify's events: its URL is the receiver of plans
	// that name none; see webhook.Sender for its defaults.
	Webhook webhook.Sender
	// GoalDigest, set on a worker that encrypts payloads, returns the
	// keyed digest GoalAttr writes to PlanGoal in place of the goal
	// (codec.Keyring.SearchDigest); nil writes the goal.
	GoalDigest func(goal string) (string, error)
}

// NotifyEvent is what a webhook tells its receiver. The webhook package
// owns the events and the body.
type NotifyEvent = webhook.Event

// NotifyEventOf says which webhook event a plan's log event is delivered
// as, if any (webhook.FromLog, which the workflow may not import).
var NotifyEventOf = webhook.FromLog

// NotifyData is the event-specific part of a webhook body.
type NotifyData = webhook.Data

// Error types of the ApplicationError a failed delivery becomes.
// WebhookRejected (a 4xx other than 408 and 429, or a redirect) is
// non-retryable; WebhookFailed (5xx, 408, 429, network) is retried by
// Temporal.
const (
	ErrorTypeWebhookRejected = "WebhookRejected"
	ErrorTypeWebhookFailed   = "WebhookFailed"
)

// NotifyInput asks to deliver one event. The workflow sets At (stamped at
// sending when zero) and IdempotencyKey deterministically (for example "<workflowID>/<event>/<seq>"),
// so every retry sends the same body under the same key.
type NotifyInput struct {
	// URL is the plan's webhook; empty uses the worker's.
	URL            string      `json:"url,omitempty"`
	Event          NotifyEvent `json:"event"`
	WorkflowID     string      `json:"workflowId"`
	RunID          string      `json:"runId"`
	Phase          plan.Phase  `json:"phase"`
	At             time.Time   `json:"at"`
	Data           NotifyData  `json:"data"`
	IdempotencyKey string      `json:"idempotencyKey"`
}

// NotifyOutput says whether the event was delivered. Sent is false when no
// webhook is configured.
type NotifyOutput struct {
	Sent       bool `json:"sent"`
	StatusCode int  `json:"statusCode,omitempty"`
	// NoReceiver is set when neither the plan nor the worker names a
	// webhook, so the workflow can stop scheduling deliveries.
	NoReceiver bool `json:"noReceiver,omitempty"`
}

// ReceiverOutput says whether the worker names a webhook of its own.
type ReceiverOutput struct {
	// None is set when it names none: a plan that names none either has
	// no receiver, as Notify would find.
	None bool `json:"none,omitempty"`
}

// Receiver tells a plan that names no webhook, at its start, whether the
// worker has one, so that a plan with no receiver starts no deliveries at
// all rather than learning it from the first one. It reads only the
// worker's configuration: the workflow asks it as a local activity.
func (n *Notices) Receiver(context.Context) (ReceiverOutput, error) {
	return ReceiverOutput{None: n.Webhook.URL == ""}, nil
}

// Notify POSTs the event to the plan's webhook, or the worker's when the
// plan names none, and does nothing when neither is set. The body is
// signed with HMAC-SHA256 when a secret is configured (see
// webhook.VerifySignature). A 2xx answer is success; a 4xx other than 408
// and 429 returns a non-retryable ErrorTypeWebhookRejected error, and a 5xx,
// 408, 429 or network failure a retryable ErrorTypeWebhookFailed one (honouring
// Retry-After). Errors never quote the URL, which may hold a token.
func (n *Notices) Notify(ctx context.Context, in NotifyInput) (NotifyOutput, error) {
	body := webhook.Body{Event: in.Event, WorkflowID: in.WorkflowID, RunID: in.RunID, Phase: in.Phase, At: in.At, Data: in.Data}
	code, err := n.Webhook.Send(ctx, in.URL, body, idempotencyKey(ctx, in))
	switch {
	case errors.Is(err, webhook.ErrNoReceiver):
		return NotifyOutput{NoReceiver: true}, nil
	case err != nil:
		metrics.WebhookDelivered(metricsHandler(ctx), metrics.OutcomeFailed)
		return NotifyOutput{StatusCode: code}, deliveryError(err)
	}
	metrics.WebhookDelivered(metricsHandler(ctx), metrics.OutcomeOK)
	return NotifyOutput{Sent: true, StatusCode: code}, nil
}

// deliveryError turns a failed delivery into its ApplicationError.
func deliveryError(err error) error {
	var de *webhook.Error
	if !errors.As(err, &de) {
		return temporal.NewApplicationError(fmt.Sprintf("webhook: %v", err), ErrorTypeWebhookFailed)
	}
	if !de.Retryable {
		return temporal.NewNonRetryableApplicationError(de.Msg, ErrorTypeWebhookRejected, de.Err)
	}
	return temporal.NewApplicationErrorWithOptions(de.Msg, ErrorTypeWebhookFailed, temporal.ApplicationErrorOptions{
		NextRetryDelay: de.RetryAfter, Cause: de.Err})
}

// idempotencyKey is the workflow's key, or one derived from the activity,
// which stays the same across the activity's retries.
func idempotencyKey(ctx context.Context, in NotifyInput) string {
	if in.IdempotencyKey != "" {
		return in.IdempotencyKey
	}
	info := activity.GetInfo(ctx)
	return fmt.Sprintf("%s/%s/%s/%s", info.WorkflowExecution.ID, info.WorkflowExecution.RunID, in.Event, info.ActivityID)
}
