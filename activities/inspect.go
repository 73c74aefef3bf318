package activities

import (
	"context"
	"fmt"
	"strings"

	"github.com/planmode/planmode/internal/heartbeat"
	"github.com/planmode/planmode/llm"
	"github.com/planmode/planmode/plan"
	"github.com/planmode/planmode/prompts"
)

// Bounds of a workspace inspection while planning or reflecting.
const (
	// MaxInspectRounds bounds the rounds of read-only tool calls planning
	// and reflection may make; the request after the last round offers no
	// tools, so the model must answer.
	MaxInspectRounds = 3
	// maxInspectOutput bounds one tool result in the prompt.
	maxInspectOutput = 8 << 10
)

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

// inspectTools returns the specs to offer for an inspection: the
// workspace's (workspaceTools) and the read-only MCP tools it names
// (mcpInspectTools), at most plan.MaxStepTools in all.
func (a *Activities) inspectTools(ins inspection) []llm.ToolSpec {
	specs := append(a.workspaceTools(ins), a.mcpInspectTools(ins.mcp)...)
	return specs[:min(len(specs), plan.MaxStepTools)]
}

// workspaceTools returns none without a workspace or with one that
// cannot be used (the prompt's file listing still applies), else the
// read-only tools of ToolSpecs when it can tell them, else those of the
// registry RunTool runs.
func (a *Activities) workspaceTools(ins inspection) []llm.ToolSpec {
	if strings.TrimSpace(ins.workspace) == "" {
		return nil
	}
	if _, err := a.Workspace.Resolve(ins.workspace, true); err != nil {
		return nil
	}
	if ro, ok := a.specs().(ReadOnlyToolSpecs); ok {
		return ro.ReadOnlySpecs()
	}
	return registrySpecs{a.registry()}.ReadOnlySpecs()
}

// inspect makes req, first letting the model look at the workspace: while
// it calls tools, each call runs read-only in the workspace and its result
// goes back as a tool message, for at most MaxInspectRounds rounds; the
// request after them offers no tools. Read-only tools change nothing, so
// a retry of the activity repeats them safely. It returns the last
// response, the messages that request was made with (for a repair) and
// the usage of every call.
func (a *Activities) inspect(ctx context.Context, req llm.Request, ins inspection) (llm.Response, []Message, plan.Usage,
	error) {
	specs := a.inspectTools(ins)
	if len(specs) == 0 {
		resp, usage, err := a.complete(ctx, req)
		return resp, req.Messages, usage, err
	}
	names := make([]string, len(specs))
	for i, s := range specs {
		names[i] = s.Name
	}
	msgs := prompts.WithInspectNote(req.Messages, names, MaxInspectRounds)
	beat := heartbeat.Recorder(ctx)
	var usage plan.Usage
	for round := 1; ; round++ {
		r := req
		r.Messages = msgs
		if round <= MaxInspectRounds {
			r.Tools = specs
		}
		resp, u, err := a.complete(ctx, r)
		usage = usage.Add(u)
		if err != nil || len(resp.ToolCalls) == 0 || round > MaxInspectRounds {
			return resp, msgs, usage, err
		}
		results, err := a.runInspectCalls(ctx, ins, specs, round, resp.ToolCalls)
		if err != nil {
			return llm.Response{}, msgs, usage, err
		}
		msgs = append(msgs, Message{Role: llm.RoleAssistant, Content: resp.Content, ToolCalls: results.calls})
		msgs = append(msgs, results.messages...)
		if round == MaxInspectRounds {
			msgs = append(msgs, Message{Role: llm.RoleUser, Content: prompts.InspectDone})
		}
		if beat != nil {
			beat(fmt.Sprintf("inspecting the workspace: %s, round %d of %d", req.Phase, round, MaxInspectRounds))
		}
	}
}

// inspectRound is one round's tool calls, with ids, and their results as
// tool messages.
type inspectRound struct {
	calls    []ToolCall
	messages []Message
}

// runInspectCalls runs one round's tool calls read-only in the workspace.
// A call without an id gets one, as tool messages must name their call.
// A tool that fails, is unknown or would change the workspace is a tool
// message saying so, never run; only cancellation is an error.
func (a *Activities) runInspectCalls(ctx context.Context, ins inspection, specs []llm.ToolSpec, round int, calls []ToolCall) (
	inspectRound, error) {
	var out inspectRound
	for i, c := range calls {
		if ctx.Err() != nil {
			return inspectRound{}, fmt.Errorf("inspect the workspace: %w", ctx.Err())
		}
		if c.ID == "" {
			c.ID = fmt.Sprintf("inspect_%d_%d", round, i+1)
		}
		res, err := a.inspectCall(ctx, ins, specs, c)
		if err != nil && ctx.Err() != nil {
			return inspectRound{}, fmt.Errorf("inspect the workspace: %w", ctx.Err())
		}
		if err != nil {
			res = ToolOutput{Error: err.Error()}
		}
		out.calls = append(out.calls, c)
		out.messages = append(out.messages, Message{Role: llm.RoleTool, ToolCallID: c.ID, Content: inspectResult(res)})
	}
	return out, nil
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
	text, _ = boundOutput(text, maxInspectOutput)
	return text
}
