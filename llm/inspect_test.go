package llm

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The model looks for at most Rounds rounds, each call's result going
// back as a tool message; the request after the last round offers no
// tools and says Done.
func TestInspectionRoundsEndInAnAnswer(t *testing.T) {
	look := Response{ToolCalls: []ToolCall{{Name: "read_file"}}}
	r := &replies{out: []Response{look, look, {Content: "the answer"}}}
	var ran []ToolCall
	var beats []int
	in := Inspection{Tools: []ToolSpec{{Name: "read_file"}}, Rounds: 2, Done: "answer now",
		Run: func(_ context.Context, c ToolCall) (string, error) {
			ran = append(ran, c)
			return "contents", nil
		},
		Beat: func(round int) { beats = append(beats, round) }}
	resp, msgs, usage, err := in.Exchange(r.call)(context.Background(), Request{Messages: []Message{{Role: RoleUser,
		Content: "plan"}}})
	require.NoError(t, err)
	assert.Equal(t, "the answer", resp.Content)
	assert.Equal(t, 3, usage.Calls)
	assert.Equal(t, []int{1, 2}, beats)
	require.Len(t, ran, 2)
	assert.Equal(t, "inspect_1_1", ran[0].ID, "a call without an id gets one")
	assert.Len(t, r.seen[1].Tools, 1)
	assert.Empty(t, r.seen[2].Tools, "the answer round offers no tools")
	assert.Equal(t, msgs, r.seen[2].Messages)
	assert.Equal(t, Message{Role: RoleTool, ToolCallID: "inspect_2_1", Content: "contents"}, msgs[len(msgs)-2])
	assert.Equal(t, Message{Role: RoleUser, Content: "answer now"}, msgs[len(msgs)-1])
}

// Cancellation ends an inspection before the next call runs.
func TestInspectionStopsOnCancellation(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	r := &replies{out: []Response{{ToolCalls: []ToolCall{{Name: "read_file"}}}}}
	in := Inspection{Tools: []ToolSpec{{Name: "read_file"}}, Rounds: 3,
		Run: func(context.Context, ToolCall) (string, error) {
			t.Fatal("a call ran after cancellation")
			return "", nil
		}}
	_, _, _, err := in.Exchange(r.call)(ctx, Request{})
	require.ErrorIs(t, err, context.Canceled)
}

func TestInspectionNamesAndOffersItsTools(t *testing.T) {
	in := Inspection{Tools: []ToolSpec{{Name: "read_file"}, {Name: "mcp_docs_search"}}}
	assert.Equal(t, []string{"read_file", "mcp_docs_search"}, in.Names())
	assert.True(t, in.Offers("mcp_docs_search"))
	assert.False(t, in.Offers("mcp_docs_write"), "a tool not offered")
	assert.Empty(t, Inspection{}.Names())
	assert.False(t, Inspection{}.Offers(""))
}

// Without tools the request is made once, as it is: a reply that calls a
// tool anyway runs nothing and is the answer.
func TestInspectionWithoutToolsMakesOnePlainCall(t *testing.T) {
	r := &replies{out: []Response{{ToolCalls: []ToolCall{{Name: "read_file"}}}}}
	req := Request{Messages: []Message{{Role: RoleUser, Content: "plan"}}}
	resp, msgs, usage, err := Inspection{Rounds: 3, Done: "answer now"}.Exchange(r.call)(context.Background(), req)
	require.NoError(t, err)
	assert.Len(t, resp.ToolCalls, 1, "the reply is returned as it is")
	assert.Equal(t, req.Messages, msgs)
	assert.Equal(t, 1, usage.Calls)
	require.Len(t, r.seen, 1)
	assert.Empty(t, r.seen[0].Tools)
}
