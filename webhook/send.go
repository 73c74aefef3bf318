package webhook

import (
	"github.com/planmode/planmode/internal/urlallow"

	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"
)

// DefaultTimeout bounds one delivery when the Sender has no HTTP client.
const DefaultTimeout = 10 * time.Second

// maxErrorBody is how much of a refusal's body an error quotes.
const maxErrorBody = 512

// ErrNoReceiver is returned by Send when neither the event nor the Sender
// names a receiver: nothing was sent, and nothing will be.
var ErrNoReceiver = errors.New("no webhook receiver")

// Error is a failed delivery. A Retryable one (a 5xx, 408 or 429 answer,
// a network failure) may succeed later, not before RetryAfter when the
// receiver said so; any other (a 4xx, a redirect, a malformed URL) will
// not. Messages never quote the URL, which may hold a token.
type Error struct {
	Msg        string
	Retryable  bool
	RetryAfter time.Duration
	// StatusCode is the receiver's answer; zero when none came.
	StatusCode int
	// Err is the underlying cause, if any.
	Err error
}

// Error returns the message.
func (e *Error) Error() string { return e.Msg }

// Unwrap returns the cause.
func (e *Error) Unwrap() error { return e.Err }

// Sender delivers events by HTTP POST. Its zero value delivers only to
// the URL each event names, signs nothing, and uses a client with a
// DefaultTimeout timeout that does not follow redirects.
type Sender struct {
	// URL receives the events that name no receiver of their own; empty
	// means none.
	URL string
	// Secret signs every body with HMAC-SHA256 (see Signature); empty
	// means bodies are not signed.
	Secret string
	// Client sends the requests; nil means the default client above.
	Client *http.Client
	// AllowedURLs lists where an event may name a receiver of its own (a
	// plan's notify.webhookURL): an entry allows the URL equal to it, or,
	// when it ends in "/", every URL under it. Empty allows none, so a
	// starter cannot make the worker sign and POST to an address the
	// operator did not choose; URL is always allowed.
	AllowedURLs []string
}

// allowed reports whether target may receive events: it is s.URL or
// matches an entry of AllowedURLs, compared after cleaning the path so
// that "/hooks/../admin" does not pass for "/hooks/".
func (s Sender) allowed(target string) bool {
	if target == s.URL {
		return true
	}
	return urlallow.Allowed(target, s.AllowedURLs)
}

// Send POSTs body as JSON to target, or to s.URL when target is empty,
// with the event, signature and idempotency key headers, and returns the
// answer's status code. A body without a time is stamped now, in UTC as
// every time is. A 2xx answer is success; failures are *Error, and
// ErrNoReceiver says there was nowhere to send.
func (s Sender) Send(ctx context.Context, target string, body Body, idempotencyKey string) (int, error) {
	if target == "" {
		target = s.URL
	}
	if target == "" {
		return 0, ErrNoReceiver
	}
	if body.At.IsZero() {
		body.At = time.Now()
	}
	body.At = body.At.UTC()
	if !s.allowed(target) {
		return 0, &Error{Msg: fmt.Sprintf("webhook %s: the plan's webhook URL is not in notify.allowedURLs", body.Event)}
	}
	raw, err := json.Marshal(body)
	if err != nil {
		return 0, &Error{Msg: fmt.Sprintf("webhook %s: encode body: %v", body.Event, err), Err: err}
	}
	req, err := newRequest(ctx, target, raw)
	if err != nil {
		return 0, &Error{Msg: fmt.Sprintf("webhook %s: %v", body.Event, err)}
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("User-Agent", "planmode-webhook")
	req.Header.Set(HeaderEvent, string(body.Event))
	req.Header.Set(HeaderIdempotencyKey, idempotencyKey)
	if s.Secret != "" {
		req.Header.Set(HeaderSignature, Signature(s.Secret, raw))
	}
	resp, err := s.client().Do(req)
	if err != nil {
		return 0, &Error{Msg: fmt.Sprintf("webhook %s: %v", body.Event, redact(err)), Retryable: true}
	}
	defer resp.Body.Close()
	snippet, _ := io.ReadAll(io.LimitReader(resp.Body, maxErrorBody))
	_, _ = io.Copy(io.Discard, resp.Body)
	return resp.StatusCode, statusError(body.Event, resp, snippet)
}

// newRequest builds the POST of body to target, an http or https URL with
// a host. Its error does not quote the URL.
func newRequest(ctx context.Context, target string, body []byte) (*http.Request, error) {
	u, err := url.Parse(target)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, errors.New("the webhook URL is not an http or https URL with a host")
	}
	return http.NewRequestWithContext(ctx, http.MethodPost, u.String(), bytes.NewReader(body))
}

// client returns the configured client, or one with a timeout that leaves
// redirects unfollowed (they turn a POST into a GET).
func (s Sender) client() *http.Client {
	if s.Client != nil {
		return s.Client
	}
	return &http.Client{
		Timeout:       DefaultTimeout,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}
}

// statusError classifies a receiver's answer: nil for 2xx.
func statusError(event Event, resp *http.Response, snippet []byte) error {
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
		return &Error{Msg: fmt.Sprintf("webhook %s failed: %s", event, msg), Retryable: true,
			RetryAfter: retryAfter(resp.Header, time.Now()), StatusCode: code}
	default:
		return &Error{Msg: fmt.Sprintf("webhook rejected: %s", msg), StatusCode: code}
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
