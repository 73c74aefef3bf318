package signals

import (
	"encoding/json"
	"slices"
	"strings"

	"github.com/planmode/planmode/plan"
)

// RecordedTools is what a plan records of its worker when it starts to
// plan: the worker's approval policy (approval.* with its defaults) and
// the MCP tools the worker offered, with the digest of that catalogue.
// Replays and other workers then decide and offer what the plan saw; a
// worker whose catalogue differs later refuses the calls (the digest),
// it does not re-bind them. It is in the checkpoint and so in history:
// never rename a tag.
type RecordedTools struct {
	Approval ApprovalPolicy `json:"approval"`
	// MCPDigest is the digest of the worker's MCP catalogue; every MCP
	// call carries it.
	MCPDigest string         `json:"mcpDigest,omitempty"`
	MCP       []RecordedTool `json:"mcp,omitempty"`
	// MCPProblems are the servers and tools the worker left out, and why.
	MCPProblems []string `json:"mcpProblems,omitempty"`
	// Schemas are the input schemas of the worker's own tools (the
	// built-ins and any a Go user added), by name: an approval's edited
	// arguments for one of them are checked against it.
	Schemas map[string]json.RawMessage `json:"schemas,omitempty"`
}

// RecordedTool is one MCP tool as a plan recorded it.
type RecordedTool struct {
	// Name is the public name, mcp__<server>__<tool>.
	Name        string          `json:"name"`
	Description string          `json:"description,omitempty"`
	Parameters  json.RawMessage `json:"parameters,omitempty"`
	ReadOnly    bool            `json:"readOnly,omitempty"`
	Idempotent  bool            `json:"idempotent,omitempty"`
}

// Tool returns the recorded MCP tool name.
func (t *RecordedTools) Tool(name string) (RecordedTool, bool) {
	if t == nil {
		return RecordedTool{}, false
	}
	i := slices.IndexFunc(t.MCP, func(r RecordedTool) bool { return r.Name == name })
	if i < 0 {
		return RecordedTool{}, false
	}
	return t.MCP[i], true
}

// MCPList returns the recorded MCP tools; none when nothing was recorded.
func (t *RecordedTools) MCPList() []RecordedTool {
	if t == nil {
		return nil
	}
	return t.MCP
}

// Names returns the recorded MCP tools' names, in order.
func (t *RecordedTools) Names() []string {
	if t == nil {
		return nil
	}
	out := make([]string, len(t.MCP))
	for i, r := range t.MCP {
		out[i] = r.Name
	}
	return out
}

// maxMCPNameBytes bounds an MCP tool's public name, as providers do.
const maxMCPNameBytes = 64

// mcpToolNames returns the names of e's tool steps and agent tool lists
// that are well-formed MCP tool names (mcp__…, at most 64 of
// [A-Za-z0-9_-]). A request cannot know the worker's tools; the run holds
// the plan to the tools it recorded.
func mcpToolNames(steps []plan.Step) []string {
	var out []string
	add := func(n string) {
		if wellFormedMCPName(n) && !slices.Contains(out, n) {
			out = append(out, n)
		}
	}
	for _, s := range steps {
		if t := s.Config.Tool; t != nil {
			add(t.Name)
		}
		if ag := s.Config.Agent; ag != nil {
			for _, n := range ag.Tools {
				add(n)
			}
		}
	}
	return out
}

// wellFormedMCPName reports whether n could name an MCP tool.
func wellFormedMCPName(n string) bool {
	if !strings.HasPrefix(n, plan.MCPToolPrefix) || len(n) > maxMCPNameBytes || len(n) == len(plan.MCPToolPrefix) {
		return false
	}
	for _, c := range n {
		ok := c == '_' || c == '-' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')
		if !ok {
			return false
		}
	}
	return true
}
