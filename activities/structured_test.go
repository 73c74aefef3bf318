package activities

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/planmode/planmode/plan"
)

const goodReflect = `{"decision":"continue","reason":"on track"}`

func TestStructuredRepairSucceeds(t *testing.T) {
	a, llm := newScripted(text("not json at all"), text(goodReflect))
	r, err := a.Reflect(context.Background(), ReflectInput{Goal: "g"})
	require.NoError(t, err)
	assert.Equal(t, plan.DecisionContinue, r.Decision)
	assert.Equal(t, 2, llm.calls())
	assert.Equal(t, 2, r.Usage.Calls)
	assert.Equal(t, 240, r.Usage.TotalTokens)

	repair := llm.requests[1].Messages
	require.Len(t, repair, 4)
	assert.Equal(t, RoleAssistant, repair[2].Role)
	assert.Equal(t, "not json at all", repair[2].Content)
	assert.Equal(t, RoleUser, repair[3].Role)
	assert.Contains(t, repair[3].Content, "Your reply was not valid: the reply holds no JSON object.")
	assert.Contains(t, repair[3].Content, "Reply with valid JSON only.")
	assert.Equal(t, FormatJSON, llm.requests[1].Format)
}

func TestStructuredFailsAfterOneRepair(t *testing.T) {
	a, llm := newScripted(text(`{"decision":"dance"}`), text(`{"decision":"dance","reason":"x"}`))
	_, err := a.Reflect(context.Background(), ReflectInput{Goal: "g"})
	appErr := appError(t, err)
	assert.Equal(t, string(ErrMalformedOutput), appErr.Type())
	assert.True(t, appErr.NonRetryable())
	assert.Contains(t, appErr.Message(), `"dance" is not a decision`)
	assert.Equal(t, 2, llm.calls())
	var spent plan.Usage
	require.NoError(t, appErr.Details(&spent))
	assert.Equal(t, 2, spent.Calls)
}

func TestStructuredRepairOfACutOffReplyAsksForAShorterOne(t *testing.T) {
	cut := text(`{"decision":"continue","reason":"the first step went`)
	cut.resp.FinishReason = "length"
	a, llm := newScripted(cut, cut)
	_, err := a.Reflect(context.Background(), ReflectInput{Goal: "g"})
	appErr := appError(t, err)
	assert.Equal(t, string(ErrMalformedOutput), appErr.Type())
	assert.Contains(t, appErr.Message(), "stopped at the token limit")
	require.Equal(t, 2, llm.calls())
	repair := llm.requests[1].Messages
	assert.Contains(t, repair[len(repair)-1].Content, "stopped at the token limit before its JSON was complete")
	assert.Contains(t, repair[len(repair)-1].Content, "answer again, shorter")
}

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
			raw, err := extractJSON(tt.in)
			if !tt.ok {
				assert.Error(t, err)
				return
			}
			require.NoError(t, err)
			assert.True(t, json.Valid(raw))
		})
	}
}

func TestOptionsExampleIsAnOptionsReply(t *testing.T) {
	dec := json.NewDecoder(strings.NewReader(optionsExample))
	dec.DisallowUnknownFields()
	var r OptionsReply
	require.NoError(t, dec.Decode(&r))
	require.NoError(t, checkOptions(&r))
	assert.Len(t, r.Options[0].Steps, 3)
}

func TestSchemasAreJSON(t *testing.T) {
	for _, s := range []*JSONSchema{clarifySchema, optionsSchema, reflectSchema} {
		assert.True(t, json.Valid(s.Schema), s.Name)
	}
}
