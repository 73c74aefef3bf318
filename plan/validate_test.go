package plan

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestValidateReportsEachProblem(t *testing.T) {
	tests := []struct {
		name     string
		mutate   func(p *Plan)
		lim      Limits
		errors   []string
		warnings []string
	}{
		{"valid chain", func(p *Plan) {}, Limits{}, nil, nil},
		{"empty plan", func(p *Plan) { p.Steps = nil }, Limits{}, []string{CodeEmptyPlan}, nil},
		{"missing id", func(p *Plan) { p.Steps[1].ID = ""; p.Steps[2].DependsOn = nil }, Limits{}, []string{CodeMissingStepID}, nil},
		{"duplicate id", func(p *Plan) { p.Steps[2].ID = "s1"; p.Steps[2].DependsOn = nil }, Limits{}, []string{CodeDuplicateStepID}, nil},
		{"invalid action", func(p *Plan) { p.Steps[0].Action = "shell" }, Limits{}, []string{CodeInvalidActionType}, nil},
		{"llm without prompt", func(p *Plan) { p.Steps[0].Config.LLM.Prompt = " " }, Limits{}, []string{CodeMissingConfig}, nil},
		{"tool without config", func(p *Plan) { p.Steps[0].Action = ActionTool }, Limits{}, []string{CodeMissingConfig}, nil},
		{"agent without config", func(p *Plan) { p.Steps[0].Action = ActionAgent }, Limits{}, []string{CodeMissingConfig}, nil},
		{"unknown dependency", func(p *Plan) { p.Steps[1].DependsOn = []string{"ghost"} }, Limits{}, []string{CodeInvalidDependency}, nil},
		{"self dependency", func(p *Plan) { p.Steps[1].DependsOn = []string{"s2"} }, Limits{}, []string{CodeSelfDependency}, nil},
		{"cycle", func(p *Plan) { p.Steps[0].DependsOn = []string{"s3"} }, Limits{}, []string{CodeCircularDependency}, nil},
		{"unknown fallback", func(p *Plan) { p.Steps[0].FallbackStepID = "ghost" }, Limits{}, []string{CodeUnknownFallback}, nil},
		{"self fallback", func(p *Plan) { p.Steps[0].FallbackStepID = "s1" }, Limits{}, []string{CodeSelfFallback}, nil},
		{"negative retries", func(p *Plan) { p.Steps[0].MaxRetries = -1 }, Limits{}, []string{CodeInvalidRetries}, nil},
		{"bad condition", func(p *Plan) { p.Steps[2].SkipCondition = "s1.completed &&" }, Limits{}, []string{CodeInvalidCondition}, nil},
		{"condition names unknown step", func(p *Plan) { p.Steps[2].SkipCondition = "s9.failed" }, Limits{}, []string{CodeInvalidCondition}, nil},
		{"too many steps", func(p *Plan) {}, Limits{MaxSteps: 2}, []string{CodeTooManySteps}, nil},
		{"long plan", func(p *Plan) {}, Limits{WarnSteps: 2}, nil, []string{CodeLongPlan}},
		{"missing title", func(p *Plan) { p.Steps[1].Title = "" }, Limits{}, nil, []string{CodeMissingTitle}},
		{"several at once in step order", func(p *Plan) {
			p.Steps[2].Action = "x"
			p.Steps[0].FallbackStepID = "nope"
			p.Steps[1].DependsOn = []string{"zz"}
		}, Limits{}, []string{CodeUnknownFallback, CodeInvalidDependency, CodeInvalidActionType}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := chain(3)
			tt.mutate(&p)
			res := Validate(p, tt.lim)
			assert.Equal(t, len(tt.errors) == 0, res.Valid)
			assert.Equal(t, tt.errors, nilIfEmpty(codes(res.Errors)))
			assert.Equal(t, tt.warnings, nilIfEmpty(codes(res.Warnings)))
		})
	}
}

func nilIfEmpty(s []string) []string {
	if len(s) == 0 {
		return nil
	}
	return s
}

func TestValidateLongPlanDefaultsToTenSteps(t *testing.T) {
	assert.Empty(t, Validate(chain(10), Limits{}).Warnings)
	res := Validate(chain(11), Limits{})
	require.True(t, res.Valid)
	assert.Equal(t, []string{CodeLongPlan}, codes(res.Warnings))
}

func TestValidateNamesTheCycle(t *testing.T) {
	p := chain(4)
	// s2 → s1 → s4 → s3 → s2: every step depends on the next in the loop.
	p.Steps[0].DependsOn = []string{"s4"}
	res := Validate(p, Limits{})
	require.Equal(t, []string{CodeCircularDependency}, codes(res.Errors))
	assert.Equal(t, "circular dependency: s1 → s4 → s3 → s2 → s1", res.Errors[0].Message)
	assert.Equal(t, "s1", res.Errors[0].StepID)
}

func TestValidateIsDeterministic(t *testing.T) {
	p := chain(6)
	p.Steps[0].DependsOn = []string{"s6", "ghost"}
	p.Steps[3].Action = ""
	first := Validate(p, Limits{MaxSteps: 3})
	for range 20 {
		assert.Equal(t, first, Validate(p, Limits{MaxSteps: 3}))
	}
	assert.Equal(t, []string{CodeTooManySteps, CodeInvalidDependency, CodeInvalidActionType, CodeCircularDependency}, codes(first.Errors))
	assert.Len(t, first.Messages(), 4)
}
