package offline

import (
	"testing"

	openai "github.com/sashabaranov/go-openai"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/planmode/planmode/llm"
	"github.com/planmode/planmode/llm/reply"
)

// readOnlyTools are the tools planning is offered.
var readOnlyTools = []string{"list_files", "read_file", "search_code", "search_files"}

// withListing appends a list_files round and its result to req.
func withListing(req openai.ChatCompletionRequest, listing string) openai.ChatCompletionRequest {
	req.Messages = append(req.Messages,
		openai.ChatCompletionMessage{Role: openai.ChatMessageRoleAssistant, ToolCalls: []openai.ToolCall{{
			ID: "call_1", Type: openai.ToolTypeFunction,
			Function: openai.FunctionCall{Name: "list_files", Arguments: `{"recursive":true}`}}}},
		openai.ChatCompletionMessage{Role: openai.ChatMessageRoleTool, ToolCallID: "call_1", Content: listing})
	return req
}

func TestPlanListsTheWorkspaceOnceWhenOfferedTools(t *testing.T) {
	b := NewOfflineBrain()
	f := planFixture{goal: "Add a discount to the cart", count: 2, files: demoFiles, tools: allTools}
	req := planReq(f)
	req.Tools = request(llm.PhasePlan, "", readOnlyTools...).Tools

	first := b.Reply(llm.PhasePlan, req)
	require.Len(t, first.ToolCalls, 1, "the brain looks before it plans")
	assert.Equal(t, "list_files", first.ToolCalls[0].Name)
	assert.Empty(t, first.Content)

	second := b.Reply(llm.PhasePlan, withListing(req, "README.md\ncart.go\ncart_test.go\ngo.mod"))
	assert.Empty(t, second.ToolCalls, "one look is enough")
	got := decodeStrict[reply.Options](t, second.Content)
	assert.Len(t, got.Options, 2)
}

func TestPlanWithoutToolsAnswersAtOnce(t *testing.T) {
	r := NewOfflineBrain().Reply(llm.PhasePlan, planReq(planFixture{goal: "Add a discount to the cart", count: 1,
		files: demoFiles, tools: allTools}))
	assert.Empty(t, r.ToolCalls)
	assert.Len(t, decodeStrict[reply.Options](t, r.Content).Options, 1)
}

func TestPlanTakesItsFilesFromTheListing(t *testing.T) {
	req := planReq(planFixture{goal: "Add a discount to the cart", count: 1, tools: allTools})
	req.Tools = request(llm.PhasePlan, "", readOnlyTools...).Tools
	v := newView(withListing(req, "src/\nsrc/cart.go\ncart_test.go\n[2 entries]"))
	assert.Equal(t, []string{"src/cart.go", "cart_test.go"}, readPlanRequest(v).ws.files)
}
