package activities

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

// repairPrompt is the user message of the one repair request; %s is the
// parse or validation error.
const repairPrompt = "Your reply was not valid: %s. Reply with valid JSON only."

// completeStructured asks for a JSON reply (JSON mode, or JSON schema when
// the provider supports it), decodes it into a T and checks it with check,
// which may also normalize it. With a workspace in ins the model may first
// inspect it through read-only tools (see inspect). A reply that does not
// decode or check gets one repair request carrying the error, with no
// tools; a second failure is a non-retryable MalformedLLMOutput error
// whose details hold the usage spent. The usage of every call made is
// returned.
func completeStructured[T any](ctx context.Context, a *Activities, req Request, ins inspection, schema *JSONSchema,
	check func(*T) error) (T, plan.Usage, error) {
	req.Format = FormatJSON
	req.Schema = schema
	var zero T
	resp, msgs, usage, err := a.inspect(ctx, req, ins)
	if err != nil {
		return zero, usage, err
	}
	out, perr := decodeReply(resp.Content, check)
	if perr == nil {
		return out, usage, nil
	}
	perr = cutOff(resp, perr)
	req.Messages = append(append([]Message(nil), msgs...),
		Message{Role: RoleAssistant, Content: resp.Content},
		Message{Role: RoleUser, Content: fmt.Sprintf(repairPrompt, perr)})
	resp, u, err := a.complete(ctx, req)
	usage = usage.Add(u)
	if err != nil {
		return zero, usage, err
	}
	if out, perr = decodeReply(resp.Content, check); perr != nil {
		return zero, usage, malformed(req.Phase, cutOff(resp, perr), usage)
	}
	return out, usage, nil
}

// finishLength is the finish reason of a reply the token limit cut off.
const finishLength = "length"

// cutOff explains a reply that failed to decode because the token limit
// cut it off: asking for "valid JSON" alone would get the same reply cut
// at the same place, so the repair asks for a shorter one.
func cutOff(resp Response, perr error) error {
	if resp.FinishReason != finishLength {
		return perr
	}
	return fmt.Errorf("the reply stopped at the token limit before its JSON was complete (%w); "+
		"answer again, shorter: fewer items and terser text", perr)
}

// decodeReply extracts the JSON object of a reply, decodes it into a T and
// checks it.
func decodeReply[T any](content string, check func(*T) error) (T, error) {
	var out T
	raw, err := extractJSON(content)
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

// extractJSON returns the JSON object in a reply: the whole reply, the
// body of a ```json fence, or the span from the first "{" to the last "}".
func extractJSON(content string) ([]byte, error) {
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

// malformed is the failure of a reply that stayed invalid after repair.
func malformed(phase string, cause error, usage plan.Usage) error {
	msg := fmt.Sprintf("the model's %s reply was not valid JSON of the requested shape, even after one repair: %v",
		phase, cause)
	return temporal.NewApplicationErrorWithOptions(msg, string(ErrMalformedOutput), temporal.ApplicationErrorOptions{
		NonRetryable: true,
		Details:      []any{usage},
	})
}
