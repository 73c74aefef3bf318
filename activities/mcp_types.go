package activities

import "github.com/planmode/planmode/mcp"

// One call of an MCP tool (MCPCallInput) and what it answered, bounded for
// history (MCPCallOutput). Their JSON shapes are the mcp package's and do
// not change.
type (
	MCPCallInput  = mcp.CallInput
	MCPCallOutput = mcp.CallOutput
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
