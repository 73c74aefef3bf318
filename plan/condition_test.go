package plan

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func conditionPlan() *Plan {
	p := withStatus(chain(5), StepCompleted, StepFailed, StepSkipped, StepCancelled)
	p.Steps[0].Result = &StepResult{Success: true, Output: "All Tests PASSED", FilesChanged: []FileChange{{Path: "a"}, {Path: "b"}}}
	p.Steps[1].Result = &StepResult{Error: "boom"}
	p.Steps[4].ID = "build-go_1"
	return &p
}

func TestEvalCondition(t *testing.T) {
	tests := []struct {
		expr string
		want bool
	}{
		{"always", true},
		{"never", false},
		{"s1.completed", true},
		{"s2.failed", true},
		{"s3.skipped", true},
		{"s4.cancelled", true},
		{"s4.done", true},
		{"build-go_1.done", false},
		{"s1.succeeded", true},
		{"s2.succeeded", false},
		{"s3.succeeded", false},
		{`s1.output contains "tests passed"`, true},
		{`s1.output contains "fail"`, false},
		{`s3.output contains ""`, true},
		{"s1.filesChanged > 1", true},
		{"s1.filesChanged >= 3", false},
		{"s1.filesChanged == 2", true},
		{"s1.filesChanged != 2", false},
		{"s1.filesChanged < 3 && s1.filesChanged <= 2", true},
		{"s3.filesChanged == 0", true},
		{"!s1.completed", false},
		{"not s2.completed", true},
		{"s1.completed && s2.completed", false},
		{"s1.completed and s2.failed", true},
		{"s2.completed || s3.skipped", true},
		{"s2.completed or never", false},
		{"s2.completed || s1.completed && s3.skipped", true},
		{"(s2.completed || s1.completed) && never", false},
		{"!(s1.failed or s2.completed)", true},
		{"not not always", true},
	}
	p := conditionPlan()
	for _, tt := range tests {
		t.Run(tt.expr, func(t *testing.T) {
			got, err := EvalCondition(tt.expr, p)
			require.NoError(t, err)
			assert.Equal(t, tt.want, got)
		})
	}
}

func TestEvalConditionErrorsCarryPosition(t *testing.T) {
	tests := []struct {
		expr string
		pos  int
		msg  string
	}{
		{"", 1, "empty condition"},
		{"s9.completed", 1, `unknown step "s9"`},
		{"s1.completed && s9.failed", 17, `unknown step "s9"`},
		{"s1.finished", 4, `unknown field "finished"`},
		{"s1.completed &&", 16, "unexpected end"},
		{"(s1.completed", 14, "missing )"},
		{"s1.completed s2.failed", 14, "unexpected"},
		{`s1.output has "x"`, 11, "expected contains"},
		{`s1.output contains x`, 20, "quoted string"},
		{`s1.output contains "x`, 20, "unterminated string"},
		{"s1.filesChanged = 2", 17, "unexpected character"},
		{"s1.filesChanged > many", 19, "whole number"},
		{"s1", 3, "expected .field"},
		{"s1.completed & s2.failed", 14, "unexpected character"},
	}
	p := conditionPlan()
	for _, tt := range tests {
		t.Run(tt.expr, func(t *testing.T) {
			_, err := EvalCondition(tt.expr, p)
			var ce *ConditionError
			require.True(t, errors.As(err, &ce), "want *ConditionError, got %v", err)
			assert.Equal(t, tt.pos, ce.Pos)
			assert.Contains(t, ce.Msg, tt.msg)
			assert.Contains(t, err.Error(), "column")
		})
	}
}

func TestCheckCondition(t *testing.T) {
	assert.NoError(t, CheckCondition("ghost.completed", nil), "syntax only")
	assert.Error(t, CheckCondition("ghost.completed", map[string]bool{"s1": true}))
	assert.NoError(t, CheckCondition("s1.completed", map[string]bool{"s1": true}))
	assert.Error(t, CheckCondition("s1.completed )", nil))
}
