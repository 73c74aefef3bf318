package activities

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/planmode/planmode/llm"
	"github.com/planmode/planmode/plan"
)

const goodReflect = `{"decision":"continue","reason":"on track"}`

func TestStructuredRepairSucceeds(t *testing.T) {
	a, model := newScripted(text("not json at all"), text(goodReflect))
	r, err := a.Reflect(context.Background(), ReflectInput{Context: plan.StepContext{Goal: "g"}})
	require.NoError(t, err)
	assert.Equal(t, plan.DecisionContinue, r.Decision)
	assert.Equal(t, 2, model.calls())
	assert.Equal(t, 2, r.Usage.Calls)
	assert.Equal(t, 240, r.Usage.TotalTokens)

	repair := model.requests[1].Messages
	require.Len(t, repair, 4)
	assert.Equal(t, llm.RoleAssistant, repair[2].Role)
	assert.Equal(t, "not json at all", repair[2].Content)
	assert.Equal(t, llm.RoleUser, repair[3].Role)
	assert.Contains(t, repair[3].Content, "Your reply was not valid: the reply holds no JSON object.")
	assert.Contains(t, repair[3].Content, "Reply with valid JSON only.")
	assert.Equal(t, llm.FormatJSON, model.requests[1].Format)
}

func TestStructuredFailsAfterOneRepair(t *testing.T) {
	a, model := newScripted(text(`{"decision":"dance"}`), text(`{"decision":"dance","reason":"x"}`))
	_, err := a.Reflect(context.Background(), ReflectInput{Context: plan.StepContext{Goal: "g"}})
	appErr := appError(t, err)
	assert.Equal(t, string(llm.ErrorTypeMalformedOutput), appErr.Type())
	assert.True(t, appErr.NonRetryable())
	assert.Contains(t, appErr.Message(), `"dance" is not a decision`)
	assert.Equal(t, 2, model.calls())
	var spent plan.Usage
	require.NoError(t, appErr.Details(&spent))
	assert.Equal(t, 2, spent.Calls)
}

func TestStructuredRepairOfACutOffReplyAsksForAShorterOne(t *testing.T) {
	cut := text(`{"decision":"continue","reason":"the first step went`)
	cut.resp.FinishReason = "length"
	a, model := newScripted(cut, cut)
	_, err := a.Reflect(context.Background(), ReflectInput{Context: plan.StepContext{Goal: "g"}})
	appErr := appError(t, err)
	assert.Equal(t, string(llm.ErrorTypeMalformedOutput), appErr.Type())
	assert.Contains(t, appErr.Message(), "stopped at the token limit")
	require.Equal(t, 2, model.calls())
	repair := model.requests[1].Messages
	assert.Contains(t, repair[len(repair)-1].Content, "stopped at the token limit before its JSON was complete")
	assert.Contains(t, repair[len(repair)-1].Content, "answer again, shorter")
}
