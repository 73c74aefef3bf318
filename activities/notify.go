package activities

import (
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/temporal"

	"github.com/planmode/planmode/plan"
	"github.com/planmode/planmode/signals"
)

// NotifyEvent is what a webhook tells its receiver.
type NotifyEvent string

// Notify events. The awaiting-* events tell a person or a service that the
// run waits for them; the step events and the final three follow the work.
const (
	EventPlanCreated           NotifyEvent = "plan-created"
	EventAwaitingSelection     NotifyEvent = "awaiting-selection"
	EventAwaitingClarification NotifyEvent = "awaiting-clarification"
	EventAwaitingConfirmation  NotifyEvent = "awaiting-confirmation"
	EventStepCompleted         NotifyEvent = "step-completed"
	EventStepFailed            NotifyEvent = "step-failed"
	EventCompleted             NotifyEvent = "completed"
	EventFailed                NotifyEvent = "failed"
	EventCancelled             NotifyEvent = "cancelled"
)

// Webhook request headers.
const (
	HeaderEvent          = "X-Planmode-Event"
	HeaderSignature      = "X-Planmode-Signature"
	HeaderIdempotencyKey = "Idempotency-Key"
	// signaturePrefix starts the signature header's value.
	signaturePrefix = "sha256="
)

// Error types of the ApplicationError a failed delivery becomes.
// WebhookRejected (a 4xx other than 408 and 429, or a redirect) is
// non-retryable; WebhookFailed (5xx, 408, 429, network) is retried by
// Temporal.
const (
	ErrWebhookRejected = "WebhookRejected"
	ErrWebhookFailed   = "WebhookFailed"
)

// DefaultWebhookTimeout bounds one delivery when WithWebhooks is given no
// HTTP client.
const DefaultWebhookTimeout = 10 * time.Second

// maxErrorBody is how much of a refusal's body an error quotes.
const maxErrorBody = 512

// notifyDeps are the webhook side of Activities: the URL used when a plan
// names none, the signing secret and the HTTP client.
type notifyDeps struct {
	webhookURL    string
	webhookSecret string
	webhookClient *http.Client
}

// WithWebhooks sets the webhook URL used when a plan names none (empty: no
// webhook unless the plan names one), the secret that signs every body
// (empty: bodies are not signed) and the HTTP client (nil: one with a
// DefaultWebhookTimeout timeout that does not follow redirects).
func WithWebhooks(defaultURL, secret string, client *http.Client) Option {
	return func(a *Activities) {
		a.webhookURL, a.webhookSecret, a.webhookClient = defaultURL, secret, client
	}
}

// NotifyData is the event-specific part of a webhook body; an event sets
// the fields that concern it and the others are left out.
type NotifyData struct {
	Goal string `json:"goal,omitempty"`
	// Message is one line a person can read.
	Message string `json:"message,omitempty"`
	// Step is the step of step-completed and step-failed.
	Step *signals.StepRef `json:"step,omitempty"`
	// Selection, Clarification and Skip describe what an awaiting-* event
	// waits for, as the pending query shows it.
	Selection     *signals.SelectionRequest     `json:"selection,omitempty"`
	Clarification *signals.ClarificationRequest `json:"clarification,omitempty"`
	Skip          *signals.SkipConfirmation     `json:"skip,omitempty"`
	Percent       int                           `json:"percent,omitempty"`
	// Status, Summary and Error report the end of a run.
	Status  signals.Status `json:"status,omitempty"`
	Summary string         `json:"summary,omitempty"`
	Error   string         `json:"error,omitempty"`
}

// NotifyInput asks to deliver one event. The workflow sets At and
// IdempotencyKey deterministically (for example "<workflowID>/<event>/<seq>"),
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

// NotifyBody is the JSON a webhook receives.
type NotifyBody struct {
	Event      NotifyEvent `json:"event"`
	WorkflowID string      `json:"workflowId"`
	RunID      string      `json:"runId"`
	Phase      plan.Phase  `json:"phase"`
	At         time.Time   `json:"at"`
	Data       NotifyData  `json:"data"`
}

// Notify POSTs the event to the plan's webhook, or the worker's when the
// plan names none, and does nothing when neither is set. The body is
// signed with HMAC-SHA256 when a secret is configured (see
// VerifySignature). A 2xx answer is success; a 4xx other than 408 and 429
// returns a non-retryable ErrWebhookRejected error, and a 5xx, 408, 429 or
// network failure a retryable ErrWebhookFailed one (honouring Retry-After).
// Errors never quote the URL, which may hold a token.
func (a *Activities) Notify(ctx context.Context, in NotifyInput) (NotifyOutput, error) {
	target := in.URL
	if target == "" {
		target = a.webhookURL
	}
	if target == "" {
		return NotifyOutput{NoReceiver: true}, nil
	}
	body, err := json.Marshal(notifyBody(in))
	if err != nil {
		return NotifyOutput{}, temporal.NewNonRetryableApplicationError(
			fmt.Sprintf("webhook %s: encode body: %v", in.Event, err), ErrWebhookRejected, err)
	}
	req, err := newWebhookRequest(ctx, target, body)
	if err != nil {
		return NotifyOutput{}, temporal.NewNonRetryableApplicationError(
			fmt.Sprintf("webhook %s: %v", in.Event, err), ErrWebhookRejected, nil)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("User-Agent", "planmode-webhook")
	req.Header.Set(HeaderEvent, string(in.Event))
	req.Header.Set(HeaderIdempotencyKey, idempotencyKey(ctx, in))
	if a.webhookSecret != "" {
		req.Header.Set(HeaderSignature, Signature(a.webhookSecret, body))
	}
	resp, err := a.httpClient().Do(req)
	if err != nil {
		return NotifyOutput{}, temporal.NewApplicationError(
			fmt.Sprintf("webhook %s: %v", in.Event, redact(err)), ErrWebhookFailed)
	}
	defer resp.Body.Close()
	snippet, _ := io.ReadAll(io.LimitReader(resp.Body, maxErrorBody))
	_, _ = io.Copy(io.Discard, resp.Body)
	if err := statusError(in.Event, resp, snippet); err != nil {
		return NotifyOutput{StatusCode: resp.StatusCode}, err
	}
	return NotifyOutput{Sent: true, StatusCode: resp.StatusCode}, nil
}

// newWebhookRequest builds the POST of body to target, an http or https
// URL with a host. Its error does not quote the URL.
func newWebhookRequest(ctx context.Context, target string, body []byte) (*http.Request, error) {
	u, err := url.Parse(target)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, errors.New("the webhook URL is not an http or https URL with a host")
	}
	return http.NewRequestWithContext(ctx, http.MethodPost, u.String(), bytes.NewReader(body))
}

// notifyBody builds the body of in, stamping it now when the workflow gave
// no time.
func notifyBody(in NotifyInput) NotifyBody {
	at := in.At
	if at.IsZero() {
		at = time.Now()
	}
	return NotifyBody{Event: in.Event, WorkflowID: in.WorkflowID, RunID: in.RunID, Phase: in.Phase,
		At: at.UTC(), Data: in.Data}
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

// httpClient returns the configured client, or one with a timeout that
// leaves redirects unfollowed (they turn a POST into a GET).
func (a *Activities) httpClient() *http.Client {
	if a.webhookClient != nil {
		return a.webhookClient
	}
	return &http.Client{
		Timeout:       DefaultWebhookTimeout,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}
}

// statusError classifies a webhook's answer: nil for 2xx.
func statusError(event NotifyEvent, resp *http.Response, snippet []byte) error {
	code := resp.StatusCode
	if code >= 200 && code < 300 {
		return nil
	}
	msg := fmt.Sprintf("%d %s", code, http.StatusText(code))
	if s := strings.Join(strings.Fields(string(snippet)), " "); s != "" {
		msg += ": " + s
	}
	switch {
	case code == http.StatusRequestTimeout, code == http.StatusTooManyRequests, code >= 500:
		return temporal.NewApplicationErrorWithOptions(fmt.Sprintf("webhook %s failed: %s", event, msg),
			ErrWebhookFailed, temporal.ApplicationErrorOptions{NextRetryDelay: retryAfter(resp.Header, time.Now())})
	default:
		return temporal.NewNonRetryableApplicationError(fmt.Sprintf("webhook rejected: %s", msg),
			ErrWebhookRejected, nil)
	}
}

// retryAfter reads a Retry-After header in seconds or as an HTTP date; zero
// when absent or unreadable.
func retryAfter(h http.Header, now time.Time) time.Duration {
	v := strings.TrimSpace(h.Get("Retry-After"))
	if secs, err := strconv.Atoi(v); err == nil && secs > 0 {
		return time.Duration(secs) * time.Second
	}
	if at, err := http.ParseTime(v); err == nil && at.After(now) {
		return at.Sub(now)
	}
	return 0
}

// redact drops the URL from a transport error, keeping what went wrong.
func redact(err error) error {
	var ue *url.Error
	if errors.As(err, &ue) {
		return fmt.Errorf("%s: %w", strings.ToLower(ue.Op), ue.Err)
	}
	return err
}

// Signature returns the signature header value of body under secret:
// "sha256=" and the hex HMAC-SHA256.
func Signature(secret string, body []byte) string {
	m := hmac.New(sha256.New, []byte(secret))
	m.Write(body)
	return signaturePrefix + hex.EncodeToString(m.Sum(nil))
}

// VerifySignature reports whether header (the X-Planmode-Signature value)
// signs body under secret. Receivers call it on the raw body before
// decoding it; it compares in constant time and is false for an empty
// secret or a malformed header.
func VerifySignature(secret string, body []byte, header string) bool {
	if secret == "" || !strings.HasPrefix(header, signaturePrefix) {
		return false
	}
	got, err := hex.DecodeString(strings.TrimPrefix(header, signaturePrefix))
	if err != nil {
		return false
	}
	m := hmac.New(sha256.New, []byte(secret))
	m.Write(body)
	return hmac.Equal(got, m.Sum(nil))
}
