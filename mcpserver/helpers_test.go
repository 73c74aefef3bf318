package mcpserver

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/require"
)

// alice is the caller of the tests' sessions unless one says otherwise.
var alice = Caller{Identity: "alice"}

// connect serves New(plans, opts) to an in-process client over in-memory
// transports, for the test's length.
func connect(t *testing.T, plans Plans, opts ...Option) *mcp.ClientSession {
	t.Helper()
	ctx := context.Background()
	ct, st := mcp.NewInMemoryTransports()
	ss, err := New(plans, opts...).Connect(ctx, st, nil)
	require.NoError(t, err)
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "v0"}, nil).Connect(ctx, ct, nil)
	require.NoError(t, err)
	t.Cleanup(func() {
		_ = cs.Close()
		_ = ss.Close()
	})
	return cs
}

// callTool calls tool name with args and requires an answer (an MCP
// protocol error fails the test).
func callTool(t *testing.T, cs *mcp.ClientSession, name string, args map[string]any) *mcp.CallToolResult {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: args})
	require.NoError(t, err, "%s answers as a tool, never with a protocol error", name)
	return res
}

// ok requires res to be a tool's answer and decodes its structured
// content into v.
func ok(t *testing.T, res *mcp.CallToolResult, v any) {
	t.Helper()
	require.False(t, res.IsError, "an answer, not a refusal: %s", text(res))
	b, err := json.Marshal(res.StructuredContent)
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(b, v), string(b))
}

// refused requires res to be a refusal and returns its text.
func refused(t *testing.T, res *mcp.CallToolResult) string {
	t.Helper()
	require.True(t, res.IsError, "a refusal, not an answer: %s", text(res))
	return text(res)
}

// text is the text of res's content.
func text(res *mcp.CallToolResult) string {
	var b strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	return b.String()
}
