package workflows

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/planmode/planmode/activities"
	"github.com/planmode/planmode/plan"
)

// bigTurns is a transcript of n turns, each a write_file call with large
// arguments and a large tool result.
func bigTurns(n int) []activities.Message {
	var t []activities.Message
	for i := range n {
		id := fmt.Sprintf("c%d", i)
		args, _ := json.Marshal(map[string]string{"path": "f.go", "content": strings.Repeat("a", 4000)})
		t = append(t,
			activities.Message{Role: roleAssistant, Content: strings.Repeat("thinking ", 200),
				ToolCalls: []activities.ToolCall{{ID: id, Name: "write_file", Arguments: string(args)}}},
			activities.Message{Role: roleTool, ToolCallID: id, Content: strings.Repeat("r", 4000)})
	}
	return t
}

func TestBoundTranscriptKeepsTheLatestWholeAndCutsTheRest(t *testing.T) {
	whole := bigTurns(10)
	before, _ := json.Marshal(whole)
	got := boundTranscript(whole)

	require.Len(t, got, len(whole), "every message stays, so calls and results still pair")
	old := len(whole) - transcriptWhole
	for i, m := range got {
		assert.Equal(t, whole[i].Role, m.Role)
		assert.Equal(t, whole[i].ToolCallID, m.ToolCallID)
		if i >= old {
			assert.Equal(t, whole[i], m, "message %d is among the latest", i)
			continue
		}
		assert.LessOrEqual(t, len(m.Content), plan.KeptOutputBytes+64, "message %d", i)
		assert.Contains(t, m.Content, "left out")
		for _, c := range m.ToolCalls {
			assert.True(t, json.Valid([]byte(c.Arguments)), "cut arguments are still JSON")
			assert.Contains(t, c.Arguments, "leftOut")
		}
	}
	after, _ := json.Marshal(whole)
	assert.Equal(t, string(before), string(after), "the caller's transcript is left alone")
}

func TestBoundTranscriptGrowsLittlePerTurn(t *testing.T) {
	size := func(n int) int {
		b, _ := json.Marshal(boundTranscript(bigTurns(n)))
		return len(b)
	}
	short := bigTurns(2)
	assert.Equal(t, short, boundTranscript(short), "a short transcript goes whole")
	// Past the whole window each earlier turn adds its cut messages only.
	perTurn := size(30) - size(29)
	assert.Less(t, perTurn, 3*plan.KeptOutputBytes, "an earlier turn costs a bounded amount")
	assert.Less(t, size(30), 2*size(10), "thirty turns cost less than twice ten")
}
