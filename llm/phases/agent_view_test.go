package phases

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/planmode/planmode/llm"
	"github.com/planmode/planmode/plan"
)

func TestActedOnViewCutsOnlyResultsAnsweredSince(t *testing.T) {
	file := strings.Repeat("// a line of the file\n", 100)
	t1 := []llm.Message{
		{Role: llm.RoleAssistant, ToolCalls: []llm.ToolCall{{ID: "c1", Name: "read_file", Arguments: `{"path":"a.go"}`}}},
		{Role: llm.RoleTool, ToolCallID: "c1", Content: file},
	}
	assert.Equal(t, t1, ActedOnView(t1), "the newest result goes whole")

	t2 := append(append([]llm.Message(nil), t1...),
		llm.Message{Role: llm.RoleAssistant, ToolCalls: []llm.ToolCall{{ID: "c2", Name: "write_file", Arguments: `{"path":"b.md"}`}}},
		llm.Message{Role: llm.RoleTool, ToolCallID: "c2", Content: file})
	got := ActedOnView(t2)
	require.Len(t, got, 4)
	assert.True(t, strings.HasPrefix(got[1].Content, file[:ActedOnResultBytes-len("…")]), "the head is kept")
	assert.Less(t, len(got[1].Content), ActedOnResultBytes+80)
	assert.Contains(t, got[1].Content, "2200 bytes, was read at an earlier turn")
	assert.Equal(t, "c1", got[1].ToolCallID, "the pairing of calls and results is kept")
	assert.Equal(t, file, got[3].Content, "the newest result goes whole")
	assert.Equal(t, t2[0], got[0])
	assert.Equal(t, file, t2[1].Content, "the transcript itself is left alone")

	short := []llm.Message{t1[0], {Role: llm.RoleTool, ToolCallID: "c1", Content: "ok"}, t2[2]}
	assert.Equal(t, short, ActedOnView(short), "short results go whole")
	assert.Nil(t, ActedOnView(nil))
}

func TestLaterTurnContextKeepsOnlyTheStep(t *testing.T) {
	sc := plan.StepContext{Goal: "g", Step: plan.Step{ID: "s5"}, Position: 5, Total: 9, EarlierCount: 2,
		Before: []plan.StepDigest{{ID: "s3", Digest: "read a.go"}, {ID: "s4", Digest: "wrote b.md"}},
		After:  []plan.StepDigest{{ID: "s6"}}, LaterCount: 3, Summary: "2 earlier steps: 2 completed"}
	assert.Equal(t, sc, LaterTurnContext(sc, 1), "the first turn gets the whole context")
	got := LaterTurnContext(sc, 2)
	assert.Empty(t, got.Before)
	assert.Empty(t, got.Summary)
	assert.Equal(t, 4, got.EarlierCount, "the earlier steps are counted")
	assert.Empty(t, got.After, "the next step was shown on the first turn")
	assert.Equal(t, 4, got.LaterCount, "the later steps are counted")
	assert.Empty(t, got.Goal, "the goal was shown on the first turn")
	assert.Equal(t, sc.Step, got.Step)
	assert.Equal(t, 5, got.Position)
	assert.Equal(t, 9, got.Total)
	assert.Len(t, sc.Before, 2, "the input is left alone")
	assert.Equal(t, "g", sc.Goal, "the input is left alone")
}
