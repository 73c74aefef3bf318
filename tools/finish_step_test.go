package tools

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestDecodeFinishStep(t *testing.T) {
	answer, err := DecodeFinishStep(json.RawMessage(`{"answer":"  rule 3 rejects empty emails  "}`))
	require.NoError(t, err)
	assert.Equal(t, "rule 3 rejects empty emails", answer)

	atBound := strings.Repeat("a", MaxStepAnswer)
	answer, err = DecodeFinishStep(json.RawMessage(`{"answer":"` + atBound + `"}`))
	require.NoError(t, err)
	assert.Equal(t, atBound, answer, "an answer at the bound is taken whole")

	tests := []struct {
		name, args, want string
	}{
		{"no answer", `{}`, `missing argument "answer"`},
		{"blank answer", `{"answer":" "}`, `missing argument "answer"`},
		{"no arguments", ``, `missing argument "answer"`},
		{"unknown argument", `{"answer":"done","reason":"x"}`, `unknown argument "reason"`},
		{"wrong type", `{"answer":["a"]}`, `invalid argument "answer": expected a string`},
		{"malformed", `{"answer":"a"`, "invalid arguments"},
		{"trailing data", `{"answer":"a"} {}`, "unexpected data after the JSON object"},
		{"oversized", `{"answer":"` + atBound + `b"}`, "answer is 4001 bytes, more than the 4000 finish_step takes: " +
			"shorten it, or end the step with a reply without tool calls"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			answer, err := DecodeFinishStep(json.RawMessage(tt.args))
			requireToolError(t, err, tt.want)
			assert.Empty(t, answer)
		})
	}
}

func TestFinishStepIsNoRegistryTool(t *testing.T) {
	reg := Builtin(DefaultConfig())
	_, ok := reg.Get(FinishStep)
	assert.False(t, ok, "the workflow ends the step: no activity runs it")
	assert.NotContains(t, specNames(reg.Specs(nil)), FinishStep, "planning prompts list no such tool")
	err := reg.Register(Tool{Spec: Spec{Name: FinishStep}, Run: func(context.Context, Env, json.RawMessage) (Result, error) {
		return Result{}, nil
	}})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "kept for the way an agent step ends")

	spec := FinishStepSpec()
	assert.Equal(t, FinishStep, spec.Name)
	assert.False(t, spec.ReadOnly, "never among the tools planning and reflection may use")
}
