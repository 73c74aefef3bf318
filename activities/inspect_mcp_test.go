package activities

import (
	"context"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/planmode/planmode/plan"
)

// inspectServer is an MCP server with a read-only tool and one that
// deletes, counting the deletions.
func inspectServer(t *testing.T, deleted *atomic.Int32) Set {
	return mcpActivities(t, 30*time.Second, func(s *sdk.Server) {
		mcpTool(s, "read_graph", &sdk.ToolAnnotations{ReadOnlyHint: true}, func(context.Context) *sdk.CallToolResult {
			return mcpText("graph: a -> b")
		})
		mcpTool(s, "delete_all", nil, func(context.Context) *sdk.CallToolResult {
			deleted.Add(1)
			return mcpText("deleted")
		})
	})
}

func TestReflectionCallsOnlyTheReadOnlyMCPToolsItIsOffered(t *testing.T) {
	var deleted atomic.Int32
	srv := inspectServer(t, &deleted)
	a, model := newScripted(calling(
		ToolCall{ID: "r", Name: "mcp__srv__read_graph", Arguments: `{}`},
		ToolCall{ID: "d", Name: "mcp__srv__delete_all", Arguments: `{}`}),
		text(goodReflect))
	a.MCP, a.Outputs = srv.MCP, srv.Outputs
	digest := a.MCP.Catalogue().Digest
	// The workflow names only read-only tools; a name it should not have
	// sent is still not offered, as the catalogue does not mark it so.
	in := ReflectInput{Context: plan.StepContext{Goal: "g"}, Result: &plan.StepResult{Error: "failed"},
		Inspect: MCPInspect{Digest: digest, Names: []string{"mcp__srv__read_graph", "mcp__srv__delete_all"}}}
	_, err := a.Reflect(context.Background(), in)
	require.NoError(t, err)

	assert.Equal(t, []string{"mcp__srv__read_graph"}, toolNames(model.requests[0].Tools))
	msgs := toolMessages(model.requests[1].Messages)
	require.Len(t, msgs, 2)
	assert.Equal(t, "graph: a -> b", msgs[0].Content)
	assert.Contains(t, msgs[1].Content, "mcp__srv__delete_all is not offered here")
	assert.Zero(t, deleted.Load(), "the tool that deletes never ran")
}

func TestInspectionOffersNoMCPToolsUnderAnotherCatalogue(t *testing.T) {
	var deleted atomic.Int32
	a := inspectServer(t, &deleted)
	names := []string{"mcp__srv__read_graph"}
	assert.Equal(t, names, toolNames(a.inspectTools(inspection{mcp: MCPInspect{Digest: a.MCP.Catalogue().Digest, Names: names}})))
	assert.Empty(t, a.inspectTools(inspection{mcp: MCPInspect{Digest: "sha256:other", Names: names}}),
		"the names may mean other tools now")
	assert.Empty(t, worker{}.set().inspectTools(inspection{mcp: MCPInspect{Digest: "sha256:x", Names: names}}))
}

func TestPlanPromptListsTheRecordedMCPToolsBounded(t *testing.T) {
	var tools []PlanTool
	for i := range 80 {
		tools = append(tools, PlanTool{Name: fmt.Sprintf("mcp__big__tool_%02d", i), Description: strings.Repeat("d", 1000), Asks: i%2 == 1})
	}
	in := optionsIn("")
	in.MCPTools = tools
	builtin := worker{}.set().specs().Specs(nil)
	d := options(in).Data(nil, false, builtin)
	require.Len(t, d.Tools, len(builtin)+MaxPlanMCPTools)
	mcp := d.Tools[len(builtin):]
	assert.Equal(t, "mcp__big__tool_00", mcp[0].Name)
	assert.LessOrEqual(t, len(mcp[0].Description), MaxPlanToolDescription)
	assert.True(t, strings.HasPrefix(mcp[1].Description, "(a call waits for a person's approval) "))
	assert.False(t, strings.HasPrefix(mcp[0].Description, "(a call waits"))

	msgs, err := worker{}.set().Prompts.Plan(Prompts{}, d)
	require.NoError(t, err)
	user := msgs[len(msgs)-1].Content
	assert.Contains(t, user, "- mcp__big__tool_49: (a call waits for a person's approval) ddd")
	assert.NotContains(t, user, "mcp__big__tool_50")
}
