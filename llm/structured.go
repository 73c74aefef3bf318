package llm

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"go.temporal.io/sdk/temporal"

	"github.com/planmode/planmode/plan"
)

// RepairPrompt is the user message of the one repair request; %s is the
// parse or validation error.
const RepairPrompt = "Your reply was not valid: %s. Reply with valid JSON only."

// Exchange makes a request, perhaps over several calls (a model that
// inspects a workspace with tools first), and returns the last response,
// the messages the last request was made with and the usage of every call.
type Exchange func(ctx context.Context, req Request) (Response, []Message, plan.Usage, error)

// Call makes one request and returns its response and usage.
type Call func(ctx context.Context, req Request) (Response, plan.Usage, error)

// Structured asks for a JSON reply (JSON mode, or JSON schema when the
// provider supports it), decodes it into a T and checks it with check,
// which may also normalize it. The first request goes through first. A
// reply that does not decode or check gets one repair request through
// repair, carrying the error, with no tools; a second failure is a
// non-retryable ErrorTypeMalformedOutput error whose details hold the usage
// spent. The usage of every call made is returned; call errors are
// returned as they are.
func Structured[T any](ctx context.Context, req Request, schema *JSONSchema, first Exchange, repair Call,
	check func(*T) error) (T, plan.Usage, error) {
	req.Format = FormatJSON
	req.Schema = schema
	var zero T
	resp, msgs, usage, err := first(ctx, req)
	if err != nil {
		return zero, usage, err
	}
	out, perr := DecodeReply(resp.Content, check)
	if perr == nil {
		return out, usage, nil
	}
	perr = cutOff(resp, perr)
	req.Messages = append(append([]Message(nil), msgs...),
		Message{Role: RoleAssistant, Content: resp.Content},
		Message{Role: RoleUser, Content: fmt.Sprintf(RepairPrompt, perr)})
	resp, u, err := repair(ctx, req)
	usage = usage.Add(u)
	if err != nil {
		return zero, usage, err
	}
	if out, perr = DecodeReply(resp.Content, check); perr != nil {
		return zero, usage, Malformed(req.Phase, cutOff(resp, perr), usage)
	}
	return out, usage, nil
}

// cutOff explains a reply that failed to decode because the token limit
// cut it off: asking for "valid JSON" alone would get the same reply cut
// at the same place, so the repair asks for a shorter one.
func cutOff(resp Response, perr error) error {
	if resp.FinishReason != FinishLength {
		return perr
	}
	return fmt.Errorf("the reply stopped at the token limit before its JSON was complete (%w); "+
		"answer again, shorter: fewer items and terser text", perr)
}

// DecodeReply extracts the JSON object of a reply, decodes it into a T and
// checks it with check when check is not nil. Fields T does not know are
// ignored, as a model may add some: only what T needs is checked.
func DecodeReply[T any](content string, check func(*T) error) (T, error) {
	var out T
	raw, err := ExtractJSON(content)
	if err != nil {
		return out, err
	}
	if err := json.Unmarshal(raw, &out); err != nil {
		return out, fmt.Errorf("JSON does not match the requested shape: %w", err)
	}
	if check != nil {
		if err := check(&out); err != nil {
			return out, err
		}
	}
	return out, nil
}

// ExtractJSON returns the JSON object in a reply: the whole reply, the
// body of a ```json fence, or the span from the first "{" to the last "}".
func ExtractJSON(content string) ([]byte, error) {
	s := strings.TrimSpace(content)
	if s == "" {
		return nil, errors.New("the reply is empty")
	}
	if strings.HasPrefix(s, "```") {
		s = strings.TrimPrefix(s, "```")
		s = strings.TrimPrefix(s, "json")
		s = strings.TrimSuffix(strings.TrimSpace(s), "```")
		s = strings.TrimSpace(s)
	}
	if !strings.HasPrefix(s, "{") {
		start, end := strings.Index(s, "{"), strings.LastIndex(s, "}")
		if start < 0 || end < start {
			return nil, errors.New("the reply holds no JSON object")
		}
		s = s[start : end+1]
	}
	if !json.Valid([]byte(s)) {
		var v any
		err := json.NewDecoder(bytes.NewReader([]byte(s))).Decode(&v)
		if err == nil {
			err = errors.New("trailing data after the object")
		}
		return nil, fmt.Errorf("the reply is not valid JSON: %w", err)
	}
	return []byte(s), nil
}

// Malformed is the failure of a reply that stayed invalid after repair: a
// non-retryable ErrorTypeMalformedOutput error whose details hold the usage
// spent, so that the run still counts it.
func Malformed(phase string, cause error, usage plan.Usage) error {
	msg := fmt.Sprintf("the model's %s reply was not valid JSON of the requested shape, even after one repair: %v",
		phase, cause)
	return temporal.NewApplicationErrorWithOptions(msg, string(ErrorTypeMalformedOutput), temporal.ApplicationErrorOptions{
		NonRetryable: true,
		Details:      []any{usage},
	})
}
