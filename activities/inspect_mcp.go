package activities

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/planmode/planmode/llm"
	"github.com/planmode/planmode/plan"
)

// mcpInspectTools returns the specs of the MCP tools m names that the
// worker's catalogue marks read-only, taken from that catalogue; none
// when it is not the catalogue the plan recorded (the tools changed: the
// names may mean other tools now).
func (a *Activities) mcpInspectTools(m MCPInspect) []llm.ToolSpec {
	if len(m.Names) == 0 {
		return nil
	}
	cat := a.MCP.Catalogue()
	if cat.Digest != m.Digest {
		return nil
	}
	var out []llm.ToolSpec
	for _, n := range m.Names {
		if t, ok := cat.Tool(n); ok && t.ReadOnly {
			out = append(out, llm.ToolSpec{Name: t.Name, Description: t.Description, Parameters: t.Parameters})
		}
	}
	return out
}

// offered reports whether specs holds a tool called name.
func offered(specs []llm.ToolSpec, name string) bool {
	return slices.ContainsFunc(specs, func(s llm.ToolSpec) bool { return s.Name == name })
}

// inspectCall runs one call of an inspection: an MCP tool only when the
// inspection offers it (so a model told by a tool's answer to call
// another tool cannot reach one that writes), a built-in one read-only
// in the workspace.
func (a *Activities) inspectCall(ctx context.Context, ins inspection, specs []llm.ToolSpec, c ToolCall) (ToolOutput, error) {
	if !strings.HasPrefix(c.Name, plan.MCPToolPrefix) {
		return a.RunTool(ctx, ToolInput{PlanID: ins.planID, StepID: ins.stepID, Workspace: ins.workspace, Call: c, ReadOnly: true})
	}
	if !offered(specs, c.Name) {
		return ToolOutput{Error: fmt.Sprintf("%s is not offered here: only the read-only tools listed may be called", c.Name)}, nil
	}
	out, err := a.CallMCPTool(ctx, MCPCallInput{PlanID: ins.planID, StepID: ins.stepID, CallID: c.ID, Name: c.Name,
		Arguments: c.Arguments, CatalogueDigest: ins.mcp.Digest})
	if err != nil {
		return ToolOutput{}, err
	}
	res := ToolOutput{Success: !out.IsError, Output: out.Output, OutputTruncated: out.OutputTruncated, OutputRef: out.OutputRef}
	if res.Output == "" && len(out.Structured) > 0 {
		res.Output = string(out.Structured)
	}
	if out.IsError {
		res.Error = fmt.Sprintf("MCP tool %s reported an error", c.Name)
	}
	return res, nil
}
