package llm

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"net"
	"net/http"
	"strconv"
	"strings"
	"syscall"
	"time"

	"go.temporal.io/sdk/temporal"
)

// ErrorType is the type of the temporal.ApplicationError an LLM failure
// becomes. Workflows and retry policies match on it.
type ErrorType string

// Error types. Auth, bad request, not found, context length, quota, config
// and malformed output are non-retryable: a retry cannot fix them. The
// others are retryable.
const (
	ErrorTypeAuth            ErrorType = "LLMAuthError"
	ErrorTypeBadRequest      ErrorType = "LLMBadRequest"
	ErrorTypeNotFound        ErrorType = "LLMNotFound"
	ErrorTypeContextLength   ErrorType = "LLMContextLength"
	ErrorTypeQuota           ErrorType = "LLMQuotaExceeded"
	ErrorTypeConfig          ErrorType = "LLMConfigError"
	ErrorTypeRateLimited     ErrorType = "LLMRateLimited"
	ErrorTypeServer          ErrorType = "LLMServerError"
	ErrorTypeTimeout         ErrorType = "LLMTimeout"
	ErrorTypeNetwork         ErrorType = "LLMNetworkError"
	ErrorTypeInvalidResponse ErrorType = "LLMInvalidResponse"
	ErrorTypeUnknown         ErrorType = "LLMError"
	// ErrorTypeMalformedOutput is a reply that did not parse or validate even
	// after one repair request.
	ErrorTypeMalformedOutput ErrorType = "MalformedLLMOutput"
)

// ProviderError is an error answer of an LLM provider, as an adapter
// reports it: the HTTP status, the provider's error code, type and message,
// the model asked for and the Retry-After the response carried.
type ProviderError struct {
	StatusCode int
	Code       string
	Type       string
	Message    string
	Model      string
	// RetryAfter is the wait the provider asked for; zero when none.
	RetryAfter time.Duration
}

// Error returns the status and the provider's message.
func (e *ProviderError) Error() string {
	return fmt.Sprintf("LLM provider answered %d %s: %s", e.StatusCode, http.StatusText(e.StatusCode), e.Message)
}

// ClassifyError turns an error of an LLM call into a temporal
// ApplicationError whose type says what went wrong and whose retryability
// says whether another attempt can help. Errors that already are
// ApplicationErrors, and cancellation of the caller's context, are returned
// as they are; nil stays nil.
func ClassifyError(err error) error {
	if err == nil {
		return nil
	}
	var appErr *temporal.ApplicationError
	if errors.As(err, &appErr) || errors.Is(err, context.Canceled) {
		return err
	}
	var pe *ProviderError
	if errors.As(err, &pe) {
		return classifyProvider(pe)
	}
	return classifyTransport(err)
}

// classifyProvider maps an HTTP error answer by status and code.
func classifyProvider(pe *ProviderError) error {
	model := pe.Model
	switch {
	case isContextLength(pe):
		return Fail(ErrorTypeContextLength, pe, fmt.Sprintf(
			"the prompt is longer than model %q accepts: use a model with a larger context window (llm.model) "+
				"or shorten the step's prompt", model))
	case pe.StatusCode == http.StatusUnauthorized:
		return Fail(ErrorTypeAuth, pe, "the LLM provider rejected the API key: check llm.apiKey")
	case pe.StatusCode == http.StatusForbidden:
		return Fail(ErrorTypeAuth, pe, fmt.Sprintf(
			"the LLM provider refused access to model %q: check llm.apiKey and its permissions", model))
	case isContentFilter(pe):
		return Fail(ErrorTypeBadRequest, pe, fmt.Sprintf(
			"the LLM provider's content filter refused the prompt for model %q: reword the goal or step prompt, "+
				"or relax the deployment's content filter", model))
	case pe.StatusCode == http.StatusNotFound && strings.Contains(strings.ToLower(pe.Code+pe.Message), "deployment"):
		return Fail(ErrorTypeNotFound, pe, fmt.Sprintf(
			"Azure deployment %q not found: llm.model must name a deployment of the resource in llm.baseURL "+
				"(a deployment created minutes ago may not be ready yet)", model))
	case pe.StatusCode == http.StatusNotFound:
		if strings.Contains(strings.ToLower(pe.Message+pe.Code), "model") {
			return Fail(ErrorTypeNotFound, pe, fmt.Sprintf("model %q not found: check llm.model", model))
		}
		return Fail(ErrorTypeNotFound, pe, "the LLM endpoint was not found: check llm.baseURL (it usually ends in /v1)")
	case pe.StatusCode == http.StatusTooManyRequests && pe.Code == "insufficient_quota":
		return Fail(ErrorTypeQuota, pe, "the LLM account has no quota left: check the provider's billing")
	case pe.StatusCode == http.StatusTooManyRequests:
		return Retry(ErrorTypeRateLimited, pe, "the LLM provider is rate limiting", pe.RetryAfter)
	case pe.StatusCode == http.StatusRequestTimeout || pe.StatusCode == http.StatusConflict:
		return Retry(ErrorTypeTimeout, pe, "the LLM provider gave up on the request", pe.RetryAfter)
	case pe.StatusCode >= 500:
		return Retry(ErrorTypeServer, pe, "the LLM provider failed", pe.RetryAfter)
	case pe.StatusCode >= 400:
		return Fail(ErrorTypeBadRequest, pe, fmt.Sprintf(
			"the LLM provider rejected the request for model %q: check llm.model, llm.temperature and "+
				"llm.jsonSchema", model))
	}
	return Retry(ErrorTypeInvalidResponse, pe, "the LLM provider answered with an unexpected status", pe.RetryAfter)
}

// isContentFilter reports whether a 400 is a content filter's refusal
// (Azure OpenAI's content_filter and ResponsibleAIPolicyViolation codes),
// which no change of model or temperature fixes.
func isContentFilter(pe *ProviderError) bool {
	if pe.StatusCode != http.StatusBadRequest {
		return false
	}
	code := strings.ToLower(pe.Code)
	return code == "content_filter" || code == "responsibleaipolicyviolation" ||
		strings.Contains(strings.ToLower(pe.Message), "content management policy")
}

// isContextLength reports whether the provider said the prompt is too long.
func isContextLength(pe *ProviderError) bool {
	if pe.Code == "context_length_exceeded" || pe.StatusCode == http.StatusRequestEntityTooLarge {
		return true
	}
	msg := strings.ToLower(pe.Message)
	return strings.Contains(msg, "maximum context length") || strings.Contains(msg, "context window") ||
		strings.Contains(msg, "context length")
}

// classifyTransport maps errors that never reached an HTTP answer.
func classifyTransport(err error) error {
	var netErr net.Error
	switch {
	case errors.Is(err, context.DeadlineExceeded):
		return Retry(ErrorTypeTimeout, err, "the LLM call timed out", 0)
	case errors.As(err, &netErr) && netErr.Timeout():
		return Retry(ErrorTypeTimeout, err, "the LLM call timed out (llm.requestTimeout)", 0)
	case errors.Is(err, syscall.ECONNREFUSED):
		return Retry(ErrorTypeNetwork, err, "cannot connect to the LLM provider: check llm.baseURL", 0)
	case errors.As(err, &netErr), errors.Is(err, io.ErrUnexpectedEOF), errors.Is(err, io.EOF):
		return Retry(ErrorTypeNetwork, err, "the connection to the LLM provider failed", 0)
	}
	var syntaxErr *json.SyntaxError
	var typeErr *json.UnmarshalTypeError
	if errors.As(err, &syntaxErr) || errors.As(err, &typeErr) {
		return Retry(ErrorTypeInvalidResponse, err, "the LLM provider's answer is not valid JSON", 0)
	}
	return Retry(ErrorTypeUnknown, err, "the LLM call failed", 0)
}

// Fail returns a non-retryable ApplicationError of type t: what a retry
// cannot fix.
func Fail(t ErrorType, cause error, msg string) error {
	return temporal.NewApplicationErrorWithOptions(msg, string(t), temporal.ApplicationErrorOptions{
		NonRetryable: true,
		Cause:        cause,
	})
}

// Retry returns a retryable ApplicationError of type t that asks Temporal
// to wait delay before the next attempt when delay is positive.
func Retry(t ErrorType, cause error, msg string, delay time.Duration) error {
	return temporal.NewApplicationErrorWithOptions(msg, string(t), temporal.ApplicationErrorOptions{
		Cause:          cause,
		NextRetryDelay: delay,
	})
}

// MaxRetryAfter caps the wait a provider may ask for: a Retry-After of
// hours (a daily quota) would otherwise park the activity silently; after
// this long the next attempt asks again.
const MaxRetryAfter = 10 * time.Minute

// ParseRetryAfter reads how long a provider asks to wait: the
// "retry-after-ms" header (OpenAI's), or "Retry-After" in seconds or as an
// HTTP date relative to now, capped at MaxRetryAfter. It returns zero when
// there is none or it cannot be read (NaN, infinities and negative values
// included).
func ParseRetryAfter(h http.Header, now time.Time) time.Duration {
	if ms := strings.TrimSpace(h.Get("Retry-After-Ms")); ms != "" {
		if d, ok := parseWait(ms, time.Millisecond); ok {
			return d
		}
	}
	v := strings.TrimSpace(h.Get("Retry-After"))
	if v == "" {
		return 0
	}
	if d, ok := parseWait(v, time.Second); ok {
		return d
	}
	if at, err := http.ParseTime(v); err == nil {
		if d := at.Sub(now); d > 0 {
			return min(d, MaxRetryAfter)
		}
	}
	return 0
}

// parseWait reads a positive number of units, capped at MaxRetryAfter; ok
// is false when v is not a positive number. Converting a float
// beyond the int64 range to a Duration gives a meaningless value, so the
// cap applies before the conversion.
func parseWait(v string, unit time.Duration) (time.Duration, bool) {
	f, err := strconv.ParseFloat(v, 64)
	switch {
	case err != nil || math.IsNaN(f) || f <= 0:
		return 0, false
	case f >= float64(MaxRetryAfter/unit):
		return MaxRetryAfter, true
	}
	return time.Duration(f * float64(unit)), true
}
