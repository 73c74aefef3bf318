package phases

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/planmode/planmode/llm"
	"github.com/planmode/planmode/plan"
	"github.com/planmode/planmode/prompts"
)

// agentPrompt renders turn iteration of the step whose context is sc,
// after transcript, as the activity does.
func agentPrompt(t *testing.T, sc plan.StepContext, iteration int, transcript []llm.Message) []llm.Message {
	t.Helper()
	data, _ := AgentTurn(sc, "ws", iteration, 16, func([]string) []llm.ToolSpec { return nil })
	msgs, err := prompts.Agent(prompts.Custom{}, data, ActedOnView(transcript))
	require.NoError(t, err)
	require.GreaterOrEqual(t, len(msgs), 2)
	return msgs
}

func TestLaterAgentTurnsCarryTheStepAndItsTaskOnly(t *testing.T) {
	task := "Write the finding on rule 34 of signup.go: read signup.go and note it."
	sc := plan.StepContext{Goal: "Add input validation to the signup handler.", Position: 34, Total: 50,
		Step: plan.Step{ID: "s34", Title: "Rule 34 of the signup handler", Description: "Check rule34.", DependsOn: []string{"s33"},
			Config: plan.StepConfig{Agent: &plan.AgentConfig{Prompt: task}}},
		Before: []plan.StepDigest{{ID: "s33", Title: "Rule 33", Status: plan.StepCompleted, Digest: "wrote NOTES.md"}},
		After:  []plan.StepDigest{{ID: "s35", Title: "Rule 35 of the signup handler"}}}

	first := agentPrompt(t, sc, 1, nil)
	assert.Contains(t, first[0].Content, "Iteration 1 of 16.")
	assert.NotContains(t, first[0].Content, "left after this one", "what is left follows from the turn and the cap")
	for _, want := range []string{"Goal: Add input validation", "s33 [completed] Rule 33: wrote NOTES.md",
		"Next:\n- s35 Rule 35", "Step s34 (34 of 50): Rule 34 of the signup handler", "Task:\n" + task} {
		assert.Contains(t, first[1].Content, want, "the first turn plans the step from its whole context")
	}

	// A long step whose first turn's messages were cut to heads: the
	// later turn still names the step and its task.
	var transcript []llm.Message
	for i := range 6 {
		id := "c" + strings.Repeat("x", i)
		transcript = append(transcript,
			llm.Message{Role: llm.RoleAssistant, ToolCalls: []llm.ToolCall{{ID: id, Name: "read_file", Arguments: `{"path":"signup.go"}`}}},
			llm.Message{Role: llm.RoleTool, ToolCallID: id, Content: strings.Repeat("// rule\n", 300)})
	}
	transcript[1].Content = plan.TruncateBytes(transcript[1].Content, plan.KeptOutputBytes) + "\n[bytes of this earlier message left out]"
	later := agentPrompt(t, sc, 7, transcript)
	assert.Contains(t, later[0].Content, "Iteration 7 of 16.")
	user := later[1].Content
	assert.Contains(t, user, "Step s34 (34 of 50): Rule 34 of the signup handler", "the step is named on every turn")
	assert.Contains(t, user, "Description: Check rule34.")
	assert.Contains(t, user, "Task:\n"+task, "the task is on every turn")
	for _, gone := range []string{"Goal:", "Add input validation", "s33", "Next:", "s35"} {
		assert.NotContains(t, user, gone, "the first turn showed it")
	}
	assert.Len(t, later, 2+len(transcript), "the conversation keeps the step's own calls and results")
}
