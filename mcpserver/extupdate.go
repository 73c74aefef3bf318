package mcpserver

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	enumspb "go.temporal.io/api/enums/v1"
)

// Bounds of a tasks/update.
const (
	// MaxInputResponses bounds the answers of one tasks/update.
	MaxInputResponses = 16
	// MaxInputResponseBytes bounds the answers of one tasks/update, as
	// JSON.
	MaxInputResponseBytes = 64 << 10
)

// updateParams are tasks/update's.
type updateParams struct {
	mcp.ParamsBase
	TaskID         string                     `json:"taskId"`
	InputResponses map[string]json.RawMessage `json:"inputResponses"`
}

// inputResponse is the answer to a form (an ElicitResult).
type inputResponse struct {
	Action  string         `json:"action"`
	Content map[string]any `json:"content,omitempty"`
}

// taskUpdate answers tasks/update: the answer keyed as the form the plan
// waits for is checked against the form and sent to the plan as the
// caller's. Answers keyed otherwise (never asked, already answered, or
// asked of an earlier question) are ignored, as the extension says. An
// answer of the wrong shape, or one the plan refuses, is invalid params
// that says why, and the plan still waits for it under the same key.
func (s *server) taskUpdate(ctx context.Context, _ *mcp.ServerSession, p *updateParams) (*extAck, error) {
	if p == nil || !declaresExt(p.Meta) {
		return nil, errMissingExt(MethodTasksUpdate)
	}
	id, err := taskID(&taskParams{TaskID: p.TaskID})
	if err != nil {
		return nil, err
	}
	if err := checkResponses(p.InputResponses); err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(ctx, s.timeout)
	defer cancel()
	info, err := s.describe(ctx, id)
	if err != nil {
		return nil, err
	}
	if info.GetStatus() != enumspb.WORKFLOW_EXECUTION_STATUS_RUNNING {
		return ack(), nil
	}
	q, err := s.question(ctx, id)
	if err != nil || q == nil {
		return ack(), err
	}
	raw, ok := p.InputResponses[q.key]
	if !ok {
		return ack(), nil
	}
	return s.answerInput(ctx, id, q, raw)
}

// checkResponses bounds and shapes a tasks/update's answers.
func checkResponses(rs map[string]json.RawMessage) error {
	if rs == nil {
		return invalidParams("inputResponses: required, an object of answers keyed as the task's inputRequests")
	}
	if len(rs) > MaxInputResponses {
		return invalidParams("inputResponses: %d answers, at most %d", len(rs), MaxInputResponses)
	}
	n := 0
	for k, v := range rs {
		n += len(k) + len(v)
	}
	if n > MaxInputResponseBytes {
		return invalidParams("inputResponses: %d bytes, at most %d", n, MaxInputResponseBytes)
	}
	return nil
}

// answerInput sends the answer raw to question q of plan id.
func (s *server) answerInput(ctx context.Context, id string, q *question, raw json.RawMessage) (*extAck, error) {
	var r inputResponse
	if err := json.Unmarshal(raw, &r); err != nil {
		return nil, invalidParams("inputResponses[%q]: want an elicitation result {action, content}: %v", q.key, err)
	}
	switch r.Action {
	case "accept":
		if err := checkContent(q.schema, r.Content); err != nil {
			return nil, invalidParams("inputResponses[%q].content: %v; the task still waits for it", q.key, err)
		}
		err := q.answer(ctx, r.Content)
		if err != nil && isRejected(err) {
			return nil, invalidParams("inputResponses[%q]: the plan refused the answer: %v; the task still waits for it", q.key, err)
		}
		if err != nil {
			return nil, s.refusal(ctx, id, err)
		}
	case "decline":
		if q.decline != nil {
			if err := q.decline(ctx); err != nil {
				return nil, s.refusal(ctx, id, err)
			}
		}
	case "cancel":
	default:
		return nil, invalidParams("inputResponses[%q].action: %q, want accept, decline or cancel", q.key, r.Action)
	}
	return ack(), nil
}

// checkContent checks content against a form of this package (see form):
// a flat object of string fields, some required, some of fixed choices,
// each bounded.
func checkContent(schema map[string]any, content map[string]any) error {
	props, _ := schema["properties"].(map[string]any)
	required, _ := schema["required"].([]string)
	for _, name := range required {
		if _, ok := content[name]; !ok {
			return fmt.Errorf("%q is required", name)
		}
	}
	for name, v := range content {
		prop, ok := props[name].(map[string]any)
		if !ok {
			return fmt.Errorf("%q is no field of the form", name)
		}
		str, ok := v.(string)
		if !ok {
			return fmt.Errorf("%q: want a string, not %T", name, v)
		}
		if max, ok := prop["maxLength"].(int); ok && utf8.RuneCountInString(str) > max {
			return fmt.Errorf("%q: longer than %d characters", name, max)
		}
		if choices, ok := prop["oneOf"].([]any); ok && !slices.ContainsFunc(choices, func(c any) bool {
			m, _ := c.(map[string]any)
			return m["const"] == str
		}) {
			return fmt.Errorf("%q: %q is none of the form's choices", name, str)
		}
		if str == "" && slices.Contains(required, name) {
			return fmt.Errorf("%q is required", name)
		}
	}
	return nil
}
