package activities

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/converter"
	sdktest "go.temporal.io/sdk/testsuite"

	"github.com/planmode/planmode/llm"
	"github.com/planmode/planmode/plan"
	"github.com/planmode/planmode/prompts"
)

func TestEveryPhasePromptHasPhaseLineAndCallerPrompts(t *testing.T) {
	custom := Prompts{System: "Be careful.", Phases: map[string]string{
		"clarifying": "P-clarifying", "planning": "P-planning", "executing": "P-executing",
		"reflecting": "P-reflecting", "summarizing": "P-summarizing"}}
	ctx := context.Background()
	calls := map[string]func(a Set) error{
		PhaseClarify: func(a Set) error {
			_, err := a.Clarify(ctx, ClarifyInput{Task: plan.Task{Goal: "g"}, Prompts: custom})
			return err
		},
		PhasePlan: func(a Set) error {
			_, err := a.GenerateOptions(ctx, OptionsInput{Task: plan.Task{Goal: "g"}, Prompts: custom})
			return err
		},
		PhaseExecute: func(a Set) error {
			_, err := a.ExecuteLLMStep(ctx, StepInput{Prompts: custom})
			return err
		},
		PhaseAgent: func(a Set) error {
			_, err := a.AgentTurn(ctx, AgentTurnInput{StepInput: StepInput{Prompts: custom}})
			return err
		},
		PhaseReflect: func(a Set) error {
			_, err := a.Reflect(ctx, ReflectInput{Context: plan.StepContext{Goal: "g"}, Prompts: custom})
			return err
		},
		PhaseSummarize: func(a Set) error {
			_, err := a.Summarize(ctx, SummarizeInput{Goal: "g", Prompts: custom})
			return err
		},
	}
	// keys are the run's phase names the caller's prompts are given under.
	keys := map[string]string{PhaseClarify: "clarifying", PhasePlan: "planning", PhaseExecute: "executing",
		PhaseAgent: "executing", PhaseReflect: "reflecting", PhaseSummarize: "summarizing"}
	replies := map[string]string{PhaseClarify: `{"goal":"g","needsPlan":true}`, PhasePlan: optionsJSON(t, 1, 1),
		PhaseReflect: goodReflect}
	for phase, call := range calls {
		t.Run(phase, func(t *testing.T) {
			answer := replies[phase]
			if answer == "" {
				answer = "ok"
			}
			a, model := newScripted(text(answer))
			require.NoError(t, call(a))
			req := model.requests[0]
			assert.Equal(t, phase, req.Phase)
			system := req.Messages[0]
			assert.Equal(t, llm.RoleSystem, system.Role)
			assert.Equal(t, prompts.PhaseLine+phase, strings.SplitN(system.Content, "\n", 2)[0])
			assert.Contains(t, system.Content, "\n\nBe careful.")
			assert.True(t, strings.HasSuffix(system.Content, "\n\nP-"+keys[phase]), system.Content)
			assert.Equal(t, llm.RoleUser, req.Messages[1].Role)
			assert.NotContains(t, req.Messages[1].Content, "<no value>")
		})
	}
}

func TestReflectPromptShowsResultAndBoundsRemaining(t *testing.T) {
	a, model := newScripted(text(goodReflect))
	var remaining []plan.StepDigest
	for i := 1; i <= 30; i++ {
		remaining = append(remaining, plan.StepDigest{ID: fmt.Sprintf("s%d", i), Title: "later"})
	}
	_, err := a.Reflect(context.Background(), ReflectInput{
		Context:   plan.StepContext{Goal: "g", Step: plan.Step{ID: "s0", Title: "Run tests"}, Position: 1, Total: 31},
		Result:    &plan.StepResult{Success: false, Error: "2 tests failed", Output: "FAIL TestLogin"},
		Remaining: remaining})
	require.NoError(t, err)
	user := model.requests[0].Messages[1].Content
	assert.Contains(t, user, "Result of step s0: FAILED")
	assert.Contains(t, user, "Error: 2 tests failed")
	assert.Contains(t, user, "FAIL TestLogin")
	assert.Contains(t, user, "(first 10 of 30)")
	assert.NotContains(t, user, "s11 later")
}

// slowLLM answers after a delay.
type slowLLM struct{ delay time.Duration }

// Complete waits, then answers "done".
func (s slowLLM) Complete(ctx context.Context, _ llm.Request) (llm.Response, error) {
	select {
	case <-time.After(s.delay):
		return llm.Response{Content: "done"}, nil
	case <-ctx.Done():
		return llm.Response{}, ctx.Err()
	}
}

func TestLongCallHeartbeatsInsideAnActivity(t *testing.T) {
	var suite sdktest.WorkflowTestSuite
	env := suite.NewTestActivityEnvironment()
	beats := make(chan string, 100)
	env.SetOnActivityHeartbeatListener(func(_ *activity.Info, details converter.EncodedValues) {
		var d string
		if details.Get(&d) == nil {
			beats <- d
		}
	})
	a := worker{LLM: slowLLM{delay: 200 * time.Millisecond}, HeartbeatInterval: 20 * time.Millisecond}.set()
	env.RegisterActivity(a.Summarize)
	val, err := env.ExecuteActivity(a.Summarize, SummarizeInput{Goal: "g"})
	require.NoError(t, err)
	var out SummarizeOutput
	require.NoError(t, val.Get(&out))
	assert.Equal(t, "done", out.Summary)
	require.NotEmpty(t, beats)
	assert.Equal(t, "waiting for the LLM: summarize", <-beats)
}
