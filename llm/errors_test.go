package llm

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/temporal"
)

// appError asserts err is an ApplicationError and returns it.
func appError(t *testing.T, err error) *temporal.ApplicationError {
	t.Helper()
	var appErr *temporal.ApplicationError
	require.ErrorAs(t, err, &appErr)
	return appErr
}

func TestClassifyProviderErrors(t *testing.T) {
	tests := []struct {
		name      string
		err       *ProviderError
		typ       ErrorType
		retryable bool
		delay     time.Duration
		says      string
	}{
		{"401", &ProviderError{StatusCode: 401, Message: "Incorrect API key"}, ErrorTypeAuth, false, 0, "llm.apiKey"},
		{"403", &ProviderError{StatusCode: 403, Model: "m"}, ErrorTypeAuth, false, 0, "llm.apiKey"},
		{"404 model", &ProviderError{StatusCode: 404, Message: "The model `gpt-9` does not exist", Model: "gpt-9"},
			ErrorTypeNotFound, false, 0, `model "gpt-9" not found: check llm.model`},
		{"404 path", &ProviderError{StatusCode: 404, Message: "no route"}, ErrorTypeNotFound, false, 0, "llm.baseURL"},
		{"400", &ProviderError{StatusCode: 400, Message: "bad temperature"}, ErrorTypeBadRequest, false, 0, "llm.model"},
		{"context code", &ProviderError{StatusCode: 400, Code: "context_length_exceeded"}, ErrorTypeContextLength, false, 0,
			"larger context"},
		{"context message", &ProviderError{StatusCode: 400,
			Message: "This model's maximum context length is 8192 tokens"}, ErrorTypeContextLength, false, 0, "context"},
		{"quota", &ProviderError{StatusCode: 429, Code: "insufficient_quota"}, ErrorTypeQuota, false, 0, "billing"},
		{"429", &ProviderError{StatusCode: 429, RetryAfter: 7 * time.Second}, ErrorTypeRateLimited, true, 7 * time.Second,
			"rate limit"},
		{"500", &ProviderError{StatusCode: 500}, ErrorTypeServer, true, 0, "failed"},
		{"503 retry-after", &ProviderError{StatusCode: 503, RetryAfter: time.Second}, ErrorTypeServer, true, time.Second,
			"failed"},
		{"408", &ProviderError{StatusCode: 408}, ErrorTypeTimeout, true, 0, "gave up"},
		{"azure deployment", &ProviderError{StatusCode: 404, Code: "DeploymentNotFound", Model: "gpt4o-prod",
			Message: "The API deployment for this resource does not exist."}, ErrorTypeNotFound, false, 0,
			`Azure deployment "gpt4o-prod" not found: llm.model must name a deployment`},
		{"azure content filter", &ProviderError{StatusCode: 400, Code: "content_filter",
			Message: "The response was filtered due to the prompt triggering Azure OpenAI's content management policy."},
			ErrorTypeBadRequest, false, 0, "content filter refused the prompt"},
		{"azure policy violation", &ProviderError{StatusCode: 400, Code: "ResponsibleAIPolicyViolation"},
			ErrorTypeBadRequest, false, 0, "content filter"},
		{"413", &ProviderError{StatusCode: 413, Message: "Request Entity Too Large"}, ErrorTypeContextLength, false, 0,
			"larger context"},
		{"422", &ProviderError{StatusCode: 422, Message: "unprocessable"}, ErrorTypeBadRequest, false, 0, "llm.model"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			appErr := appError(t, ClassifyError(tt.err))
			assert.Equal(t, string(tt.typ), appErr.Type())
			assert.Equal(t, !tt.retryable, appErr.NonRetryable())
			assert.Equal(t, tt.delay, appErr.NextRetryDelay())
			assert.Contains(t, appErr.Message(), tt.says)
		})
	}
}

func TestClassifyTransportErrors(t *testing.T) {
	refused := &net.OpError{Op: "dial", Net: "tcp", Err: os.NewSyscallError("connect", syscall.ECONNREFUSED)}
	tests := []struct {
		name string
		err  error
		typ  ErrorType
	}{
		{"deadline", fmt.Errorf("post: %w", context.DeadlineExceeded), ErrorTypeTimeout},
		{"net timeout", &net.DNSError{IsTimeout: true}, ErrorTypeTimeout},
		{"refused", refused, ErrorTypeNetwork},
		{"eof", io.ErrUnexpectedEOF, ErrorTypeNetwork},
		{"bad json", &json.SyntaxError{}, ErrorTypeInvalidResponse},
		{"other", errors.New("boom"), ErrorTypeUnknown},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			appErr := appError(t, ClassifyError(tt.err))
			assert.Equal(t, string(tt.typ), appErr.Type())
			assert.False(t, appErr.NonRetryable())
		})
	}
}

func TestClassifyPassesThrough(t *testing.T) {
	assert.NoError(t, ClassifyError(nil))
	canceled := fmt.Errorf("post: %w", context.Canceled)
	assert.Same(t, canceled, ClassifyError(canceled))
	own := temporal.NewNonRetryableApplicationError("x", "Mine", nil)
	assert.Same(t, own, ClassifyError(own))
}

func TestParseRetryAfter(t *testing.T) {
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	tests := []struct {
		name   string
		header http.Header
		want   time.Duration
	}{
		{"none", http.Header{}, 0},
		{"seconds", http.Header{"Retry-After": {"3"}}, 3 * time.Second},
		{"fraction", http.Header{"Retry-After": {"1.5"}}, 1500 * time.Millisecond},
		{"date", http.Header{"Retry-After": {now.Add(90 * time.Second).Format(http.TimeFormat)}}, 90 * time.Second},
		{"past date", http.Header{"Retry-After": {now.Add(-time.Minute).Format(http.TimeFormat)}}, 0},
		{"milliseconds first", http.Header{"Retry-After-Ms": {"250"}, "Retry-After": {"3"}}, 250 * time.Millisecond},
		{"negative", http.Header{"Retry-After": {"-4"}}, 0},
		{"garbage", http.Header{"Retry-After": {"soon"}}, 0},
		{"NaN", http.Header{"Retry-After": {"NaN"}}, 0},
		{"infinite", http.Header{"Retry-After": {"+Inf"}}, MaxRetryAfter},
		{"beyond int64", http.Header{"Retry-After": {"1e300"}}, MaxRetryAfter},
		{"a day", http.Header{"Retry-After": {"86400"}}, MaxRetryAfter},
		{"a day away", http.Header{"Retry-After": {now.Add(24 * time.Hour).Format(http.TimeFormat)}}, MaxRetryAfter},
		{"milliseconds infinite", http.Header{"Retry-After-Ms": {"Inf"}}, MaxRetryAfter},
		{"milliseconds NaN falls back", http.Header{"Retry-After-Ms": {"NaN"}, "Retry-After": {"2"}}, 2 * time.Second},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, ParseRetryAfter(tt.header, now))
		})
	}
}
