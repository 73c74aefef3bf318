package activities

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"go.temporal.io/sdk/temporal"

	"github.com/planmode/planmode/internal/heartbeat"
	"github.com/planmode/planmode/mcp"
	"github.com/planmode/planmode/outputs"
	"github.com/planmode/planmode/plan"
	"github.com/planmode/planmode/tools"
)

// ListMCPTools returns the catalogue of the worker's MCP servers, for the
// plan to record when it plans: replays and other workers then see the
// tools it saw. Servers and tools left out are in its Problems with the
// reason. Without servers the catalogue is empty.
func (a *Activities) ListMCPTools(ctx context.Context) (MCPCatalogue, error) {
	return a.MCP.Catalogue(), nil
}

// CallMCPTool calls one MCP tool, heartbeating while it waits, within the
// server's timeout (mcp.servers.<name>.timeout; the activity's own
// timeouts should be longer). The answer, a failure the tool reports
// (IsError) included, is an MCPCallOutput with its text bounded and kept
// whole in the output store. Failures are ApplicationErrors of the
// ErrorTypeMCP… types, whose retryability says whether running the call
// again is safe.
func (a *Activities) CallMCPTool(ctx context.Context, in MCPCallInput) (MCPCallOutput, error) {
	cat := a.MCP.Catalogue()
	if in.CatalogueDigest == "" {
		return MCPCallOutput{}, fail(ErrorTypeMCPUnknownTool, nil, "call of "+in.Name+" without the catalogue digest the plan recorded")
	}
	if in.CatalogueDigest != cat.Digest {
		return MCPCallOutput{}, fail(ErrorTypeMCPCatalogueChanged, nil, fmt.Sprintf("the MCP tools changed since the plan "+
			"listed them (digest %s, now %s): %s is not called", in.CatalogueDigest, cat.Digest, in.Name))
	}
	tool, ok := cat.Tool(in.Name)
	if !ok {
		return MCPCallOutput{}, fail(ErrorTypeMCPUnknownTool, nil, fmt.Sprintf("unknown MCP tool %s", in.Name))
	}
	stop := heartbeat.Start(ctx, a.HeartbeatInterval, "waiting for MCP tool "+in.Name)
	res, err := a.MCP.Call(ctx, in.Name, json.RawMessage(in.Arguments))
	stop()
	if err != nil {
		return MCPCallOutput{}, mcpCallError(tool, err)
	}
	return a.mcpOutput(ctx, in, res), nil
}

// mcpCallError turns the manager's error into the ApplicationError of its
// kind.
func mcpCallError(tool mcp.Tool, err error) error {
	switch {
	case errors.Is(err, mcp.ErrOutcomeUnknown):
		safe := tool.ReadOnly || tool.Idempotent
		return temporal.NewApplicationErrorWithOptions(err.Error(), ErrorTypeMCPOutcomeUnknown,
			temporal.ApplicationErrorOptions{NonRetryable: !safe, Cause: err,
				Details: []any{MCPCallOutput{OutcomeUnknown: true, Error: err.Error()}}})
	case errors.Is(err, mcp.ErrUnavailable):
		return temporal.NewApplicationErrorWithOptions(err.Error(), ErrorTypeMCPUnavailable,
			temporal.ApplicationErrorOptions{Cause: err})
	case errors.Is(err, mcp.ErrCatalogueChanged):
		return fail(ErrorTypeMCPCatalogueChanged, err, err.Error())
	case errors.Is(err, mcp.ErrUnknownTool):
		return fail(ErrorTypeMCPUnknownTool, err, err.Error())
	}
	// ctx ended before the call was sent: Temporal owns what follows.
	return fmt.Errorf("call MCP tool %s: %w", tool.Name, err)
}

// mcpOutput bounds an answer for history, keeping the whole in the output
// store.
func (a *Activities) mcpOutput(ctx context.Context, in MCPCallInput, res mcp.Result) MCPCallOutput {
	limit := a.ToolOutputLimit
	if limit <= 0 {
		limit = tools.DefaultMaxOutputBytes
	}
	text, cut := tools.Truncate(res.Text, limit)
	out := MCPCallOutput{Output: text, OutputTruncated: cut, IsError: res.IsError}
	name := outputNameFor(ctx, in.PlanID, in.StepID, outputs.KindTool, in.CallID)
	if cut || len(res.Text) > plan.KeptOutputBytes {
		out.OutputRef = a.keepOutput(ctx, name, res.Text)
	}
	if len(res.Structured) > limit {
		out.StructuredOmitted = true
		name.Seq += "-structured"
		out.StructuredRef = a.keepOutput(ctx, name, string(res.Structured))
	} else {
		out.Structured = res.Structured
	}
	return out
}
