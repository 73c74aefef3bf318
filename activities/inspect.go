package activities

import (
	"context"
	"fmt"
	"strings"

	"github.com/planmode/planmode/internal/heartbeat"
	"github.com/planmode/planmode/llm"
	"github.com/planmode/planmode/llm/phases"
	"github.com/planmode/planmode/plan"
	"github.com/planmode/planmode/prompts"
)

// maxInspectOutput bounds one tool result of a workspace inspection in
// the prompt.
const maxInspectOutput = 8 << 10

// inspection says where planning or reflection may look: the workspace,
// and the plan and step the tool calls are made for (for logs). An empty
// workspace means no tools are offered.
type inspection struct {
	workspace string
	planID    string
	stepID    string
	// mcp names the read-only MCP tools it may call too.
	mcp MCPInspect
}

// inspector returns the first exchange of a structured request (see
// llm.Structured): req, made after the model has looked at the workspace
// (llm.Inspection) when ins offers tools. Each tool call it makes runs
// read-only in the workspace, for at most llm.MaxInspectRounds rounds.
// Read-only tools change nothing, so a retry of the activity repeats
// them safely.
func (m *Model) inspector(ins inspection) llm.Exchange {
	return func(ctx context.Context, req llm.Request) (llm.Response, []Message, plan.Usage, error) {
		look := llm.Inspection{Tools: m.inspectTools(ins), Rounds: llm.MaxInspectRounds, Done: prompts.InspectDone}
		if len(look.Tools) > 0 {
			req.Messages = prompts.WithInspectNote(req.Messages, look.Names(), look.Rounds)
		}
		look.Run = func(ctx context.Context, c ToolCall) (string, error) {
			res, err := m.inspectCall(ctx, ins, look.Offers, c)
			if err != nil && ctx.Err() != nil {
				return "", ctx.Err()
			}
			if err != nil {
				res = ToolOutput{Error: err.Error()}
			}
			return inspectResult(res), nil
		}
		if beat := heartbeat.Recorder(ctx); beat != nil {
			look.Beat = func(round int) {
				beat(fmt.Sprintf("inspecting the workspace: %s, round %d of %d", req.Phase, round, look.Rounds))
			}
		}
		return look.Exchange(m.complete)(ctx, req)
	}
}

// inspectTools returns the specs to offer for an inspection: the
// workspace's (workspaceTools) and the read-only MCP tools it names
// (mcpInspectTools), at most plan.MaxStepTools in all.
func (m *Model) inspectTools(ins inspection) []llm.ToolSpec {
	specs := append(m.workspaceTools(ins), m.mcpInspectTools(ins.mcp)...)
	return specs[:min(len(specs), plan.MaxStepTools)]
}

// workspaceTools returns none without a workspace or with one that
// cannot be used (the prompt's file listing still applies), else the
// read-only tools of ToolSpecs when it can tell them, else those of the
// registry RunTool runs.
func (m *Model) workspaceTools(ins inspection) []llm.ToolSpec {
	if strings.TrimSpace(ins.workspace) == "" {
		return nil
	}
	if _, err := m.tools().folders().Root.Resolve(ins.workspace, true); err != nil {
		return nil
	}
	if ro, ok := m.specs().(phases.ReadOnlyToolSpecs); ok {
		return ro.ReadOnlySpecs()
	}
	return phases.ToolSpecsOf(m.tools().registry()).ReadOnlySpecs()
}

// mcpInspectTools returns the specs of the read-only MCP tools ins names,
// taken from the worker's catalogue when it is the one the plan recorded
// (mcp.Catalogue.ReadOnly).
func (m *Model) mcpInspectTools(ins MCPInspect) []llm.ToolSpec {
	var out []llm.ToolSpec
	for _, t := range m.tools().MCP.Catalogue().ReadOnly(ins.Digest, ins.Names) {
		out = append(out, llm.ToolSpec{Name: t.Name, Description: t.Description, Parameters: t.Parameters})
	}
	return out
}

// inspectCall runs one call of an inspection: an MCP tool only when the
// inspection offers it (so a model told by a tool's answer to call
// another tool cannot reach one that writes), a built-in one read-only
// in the workspace.
func (m *Model) inspectCall(ctx context.Context, ins inspection, offered func(name string) bool, c ToolCall) (ToolOutput,
	error) {
	if !strings.HasPrefix(c.Name, plan.MCPToolPrefix) {
		return m.tools().RunTool(ctx, ToolInput{PlanID: ins.planID, StepID: ins.stepID, Workspace: ins.workspace, Call: c, ReadOnly: true})
	}
	if !offered(c.Name) {
		return ToolOutput{Error: fmt.Sprintf("%s is not offered here: only the read-only tools listed may be called", c.Name)}, nil
	}
	out, err := m.tools().CallMCPTool(ctx, MCPCallInput{PlanID: ins.planID, StepID: ins.stepID, CallID: c.ID, Name: c.Name,
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

// inspectResult is the tool message of a result: its output, or its error
// then any output, bounded to maxInspectOutput.
func inspectResult(res ToolOutput) string {
	text := res.Output
	if !res.Success {
		text = strings.TrimSpace("error: " + res.Error + "\n" + res.Output)
	}
	if strings.TrimSpace(text) == "" {
		text = "(no output)"
	}
	text, _ = phases.Bound(text, maxInspectOutput)
	return text
}
