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
)

// ListMCPTools returns the catalogue of the worker's MCP servers
// (mcp.Catalogue: every tool with its server, description, schema and
// hints, the servers and tools left out and why, and a digest that
// changes whenever any tool does), for the plan to record when it plans:
// replays and other workers then see the tools it saw. Without servers
// the catalogue is empty.
func (t *Tools) ListMCPTools(ctx context.Context) (mcp.Catalogue, error) {
	return t.MCP.Catalogue(), nil
}

// CallMCPTool calls one MCP tool, heartbeating while it waits, within the
// server's timeout (mcp.servers.<name>.timeout; the activity's own
// timeouts should be longer). The answer, a failure the tool reports
// (IsError) included, is an MCPCallOutput with its text bounded and kept
// whole in the output store. Failures are ApplicationErrors of the
// ErrorTypeMCP… types, whose retryability says whether running the call
// again is safe.
func (t *Tools) CallMCPTool(ctx context.Context, in MCPCallInput) (MCPCallOutput, error) {
	tool, err := t.MCP.Catalogue().Recorded(in.CatalogueDigest, in.Name)
	if err != nil {
		return MCPCallOutput{}, mcpCallError(mcp.Tool{Name: in.Name}, err)
	}
	stop := heartbeat.Start(ctx, t.HeartbeatInterval, "waiting for MCP tool "+in.Name)
	res, err := t.MCP.Call(ctx, in.Name, json.RawMessage(in.Arguments))
	stop()
	if err != nil {
		return MCPCallOutput{}, mcpCallError(tool, err)
	}
	return t.mcpOutput(ctx, in, res), nil
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

// mcpOutput bounds an answer for history (mcp.Bound), keeping the whole
// in the output store.
func (t *Tools) mcpOutput(ctx context.Context, in MCPCallInput, res mcp.Result) MCPCallOutput {
	out := mcp.Bound(res, t.outputLimit())
	name := outputNameFor(ctx, in.PlanID, in.StepID, outputs.FromTool, in.CallID)
	if out.OutputTruncated || len(res.Text) > plan.KeptOutputBytes {
		out.OutputRef = t.keepOutput(ctx, name, res.Text)
	}
	if out.StructuredOmitted {
		name.Seq += "-structured"
		out.StructuredRef = t.keepOutput(ctx, name, string(res.Structured))
	}
	return out
}
