// Package mcpserver is planmode as an MCP server: the tools and resources
// through which an agent's host (Claude Code, Codex, Cursor, a service on
// an MCP SDK) starts plans, answers what they wait for, steers them and
// reads them. It holds no state: every answer comes from the plans,
// through planmode's typed client ([Plans], which *planclient.Client is).
//
// # Tools
//
// One tool per operation of the contract: plan_start, plan_status,
// plan_options, plan_select, plan_refine, plan_answer, plan_confirm_skip,
// plan_approve, plan_deny, plan_raise_budget, plan_edit, plan_control
// (pause, resume, cancel), plan_result, plan_list, plan_approvals,
// plan_rollback and plan_fork. A tool's arguments are the contract's
// payload (package signals) with the plan it is for; its input schema is
// derived from that Go type, its output schema from the contract's answer,
// which it returns as structured content. Arguments are checked by the
// schema, then by the payload's Validate and the plan id's bounds, before
// anything reaches Temporal; the by of every input is the caller's
// identity, never an argument.
//
// # Refusals
//
// Whatever refuses a call (an invalid argument, an unknown plan, a plan
// of another tenant, the wrong phase, a stale approval, a call that ran
// out of time) is the call's result: IsError set and the reason as text,
// as the contract words it ("plan p: update select-option: rejected:
// ..."). Only what MCP itself refuses (an unknown tool or method, a
// malformed message) is a JSON-RPC error.
//
// # Resources
//
// plan://{id} is the plan's details as Markdown, the ones the plan keeps
// for the Temporal Web UI; plan://{id}/graph its steps as a Mermaid
// flowchart.
//
// # Tasks
//
// A plan is an MCP task (protocol revision 2025-11-25) whose id is the
// plan's: plan_start and plan_fork called with params.task answer the
// plan's task once it started, and tasks/get, tasks/list, tasks/cancel
// and tasks/result answer from Temporal, so any server answers for any
// plan. tasks/result asks the person what the plan waits for over a
// session that can elicit (stdio, or an HTTP session of a host that
// declared elicitation); without a session it only waits. The SDK
// keeps no params.task, so [TaskTransport] (stdio) and [Handler] move it
// into the call's _meta as a message arrives.
//
// # Transports
//
// [New] returns a server for one caller, to run over stdio; [Handler]
// answers Streamable HTTP, each request for the caller its token names,
// for planmode serve to mount behind its checks: without a session, except
// for hosts that elicit, whose sessions it keeps (bounded in number and
// idle time) so that tasks/result can ask over them.
package mcpserver
