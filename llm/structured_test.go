package llm

import (
	"context"
	"encoding/json"
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/planmode/planmode/plan"
)

func TestExtractJSON(t *testing.T) {
	tests := []struct {
		name, in string
		ok       bool
	}{
		{"plain", `{"a":1}`, true},
		{"fenced", "```json\n{\"a\":1}\n```", true},
		{"prose around", "Here you go: {\"a\":1} hope it helps", true},
		{"empty", "  ", false},
		{"no object", "sorry", false},
		{"broken", `{"a":`, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			raw, err := ExtractJSON(tt.in)
			if !tt.ok {
				assert.Error(t, err)
				return
			}
			require.NoError(t, err)
			assert.True(t, json.Valid(raw))
		})
	}
}

// decision is a reply shape for the tests below.
type decision struct {
	Decision string `json:"decision"`
}

// checkDecision refuses an empty decision.
func checkDecision(d *decision) error {
	if d.Decision == "" {
		return errors.New(`"decision" is missing`)
	}
	return nil
}

// replies answers each call with the next reply, cut off by the token
// limit when its finish reason says so, and records the requests.
type replies struct {
	out  []Response
	seen []Request
}

func (r *replies) call(_ context.Context, req Request) (Response, plan.Usage, error) {
	r.seen = append(r.seen, req)
	resp := r.out[0]
	r.out = r.out[1:]
	return resp, plan.Usage{Calls: 1, TotalTokens: 10}, nil
}

func (r *replies) exchange(ctx context.Context, req Request) (Response, []Message, plan.Usage, error) {
	resp, u, err := r.call(ctx, req)
	return resp, req.Messages, u, err
}

func TestStructuredRepairsOnce(t *testing.T) {
	schema := &JSONSchema{Name: "decision"}
	req := Request{Phase: PhaseReflect, Messages: []Message{{Role: RoleUser, Content: "decide"}}}
	tests := []struct {
		name    string
		replies []Response
		want    string
		repair  string
		fails   string
	}{
		{name: "good at once", replies: []Response{{Content: `{"decision":"go"}`}}, want: "go"},
		{name: "repaired", replies: []Response{{Content: "go on"}, {Content: "```json\n{\"decision\":\"go\"}\n```"}},
			want: "go", repair: "Your reply was not valid: the reply holds no JSON object. Reply with valid JSON only."},
		{name: "still bad", replies: []Response{{Content: `{}`}, {Content: `{"decision":""}`}},
			repair: `Your reply was not valid: "decision" is missing.`, fails: `reflect reply was not valid JSON`},
		{name: "cut off", replies: []Response{{Content: `{"decision":`, FinishReason: FinishLength},
			{Content: `{"decision":`, FinishReason: FinishLength}},
			repair: "answer again, shorter", fails: "stopped at the token limit"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := &replies{out: tt.replies}
			got, usage, err := Structured(context.Background(), req, schema, r.exchange, r.call, checkDecision)
			assert.Equal(t, len(tt.replies), usage.Calls, "the usage of every call")
			require.Len(t, r.seen, len(tt.replies))
			assert.Equal(t, FormatJSON, r.seen[0].Format)
			assert.Same(t, schema, r.seen[0].Schema)
			if tt.repair != "" {
				last := r.seen[1].Messages
				require.Len(t, last, 3)
				assert.Equal(t, Message{Role: RoleAssistant, Content: tt.replies[0].Content}, last[1])
				assert.Equal(t, RoleUser, last[2].Role)
				assert.Contains(t, last[2].Content, tt.repair)
			}
			if tt.fails == "" {
				require.NoError(t, err)
				assert.Equal(t, tt.want, got.Decision)
				return
			}
			appErr := appError(t, err)
			assert.Equal(t, string(ErrorTypeMalformedOutput), appErr.Type())
			assert.True(t, appErr.NonRetryable())
			assert.Contains(t, appErr.Message(), tt.fails)
			var spent plan.Usage
			require.NoError(t, appErr.Details(&spent))
			assert.Equal(t, 2, spent.Calls)
		})
	}
}

func TestStructuredReturnsCallErrorsAsTheyAre(t *testing.T) {
	boom := Retry(ErrorTypeServer, nil, "down", 0)
	first := func(context.Context, Request) (Response, []Message, plan.Usage, error) {
		return Response{}, nil, plan.Usage{Calls: 1}, boom
	}
	_, usage, err := Structured(context.Background(), Request{}, nil, first, nil, checkDecision)
	assert.Same(t, boom, err)
	assert.Equal(t, 1, usage.Calls)
}

func TestDecodeReplyIgnoresUnknownFields(t *testing.T) {
	got, err := DecodeReply(`{"decision":"go","mood":"fine"}`, checkDecision)
	require.NoError(t, err)
	assert.Equal(t, "go", got.Decision)
	_, err = DecodeReply(`{"decision":7}`, checkDecision)
	assert.ErrorContains(t, err, "JSON does not match the requested shape")
	var v json.RawMessage
	v, err = ExtractJSON("sure: {\"a\":1} done")
	require.NoError(t, err)
	assert.JSONEq(t, `{"a":1}`, string(v))
}
