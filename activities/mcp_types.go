package activities

import (
	"encoding/json"

	"github.com/planmode/planmode/mcp"
)

// The MCP catalogue a plan records when it plans: every tool of the
// worker's MCP servers (public name, server, real name, description,
// schema, readOnly and idempotent hints), the servers and tools left out
// and why, and a digest that changes whenever any tool does. Their JSON
// shapes are the mcp package's and do not change.
type (
	MCPCatalogue = mcp.Catalogue
	MCPTool      = mcp.Tool
	MCPProblem   = mcp.Problem
)

// Types of the ApplicationErrors of CallMCPTool.
const (
	// ErrorTypeMCPOutcomeUnknown is a call sent to a server that gave no
	// answer (it crashed, the connection broke, the server's timeout
	// passed): the tool may have run. It is non-retryable unless the
	// tool is read-only or idempotent, since running it again could do
	// twice what it does; its details hold an MCPCallOutput with
	// OutcomeUnknown set and Error saying why, for the step's result.
	ErrorTypeMCPOutcomeUnknown = "MCPOutcomeUnknown"
	// ErrorTypeMCPUnavailable is a server that could not be reached or
	// restarted: the call certainly did not start. Retryable.
	ErrorTypeMCPUnavailable = "MCPUnavailable"
	// ErrorTypeMCPCatalogueChanged is a call made under a catalogue
	// digest other than the worker's: the tools changed under the plan
	// (a server restarted with other tools, another worker with other
	// servers). The call is not made, nor bound to whatever tool now has
	// the name. Non-retryable.
	ErrorTypeMCPCatalogueChanged = "MCPCatalogueChanged"
	// ErrorTypeMCPUnknownTool is a name no tool of the catalogue has, or
	// a call without the catalogue digest. Non-retryable.
	ErrorTypeMCPUnknownTool = "MCPUnknownTool"
)

// MCPCallInput is one call of an MCP tool.
type MCPCallInput struct {
	PlanID string `json:"planId"`
	StepID string `json:"stepId"`
	// CallID names the call within the step (the model's tool call id),
	// for the output store.
	CallID string `json:"callId,omitempty"`
	// Name is the tool's public name (mcp__<server>__<tool>).
	Name string `json:"name"`
	// Arguments is a JSON object; empty means none.
	Arguments string `json:"arguments,omitempty"`
	// CatalogueDigest is the digest of the catalogue the plan recorded;
	// a call under another is refused (ErrorTypeMCPCatalogueChanged).
	CatalogueDigest string `json:"catalogueDigest"`
}

// MCPCallOutput is what the tool answered, bounded for history.
type MCPCallOutput struct {
	// Output is the answer's text, its head and tail when longer than
	// the tool output limit (OutputTruncated).
	Output          string `json:"output"`
	OutputTruncated bool   `json:"outputTruncated,omitempty"`
	// OutputRef is the output store's file holding the whole text, when
	// history holds only part of it.
	OutputRef string `json:"outputRef,omitempty"`
	// Structured is the answer's structured content, when there is some
	// and it fits the tool output limit; StructuredOmitted is set when it
	// did not (the whole of it is then in the file of StructuredRef).
	Structured        json.RawMessage `json:"structured,omitempty"`
	StructuredOmitted bool            `json:"structuredOmitted,omitempty"`
	StructuredRef     string          `json:"structuredRef,omitempty"`
	// IsError is set when the tool reported a failure, or the server
	// refused the call; Output says why. The agent sees it and corrects.
	IsError bool `json:"isError,omitempty"`
	// OutcomeUnknown is set, in the details of an
	// ErrorTypeMCPOutcomeUnknown error, when the call may have run but no
	// answer came back; Error says why.
	OutcomeUnknown bool   `json:"outcomeUnknown,omitempty"`
	Error          string `json:"error,omitempty"`
}
