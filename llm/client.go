package llm

import (
	"context"
	"encoding/json"

	"github.com/planmode/planmode/plan"
)

// Client is the one thing the activities need from a language model: a
// chat completion. The go-openai adapter (llm/openai) implements it for
// every OpenAI-compatible provider, the offline model included; tests
// inject their own.
//
// Complete returns a classified error (see ClassifyError): the adapter marks
// what a retry cannot fix as non-retryable, so that Temporal's retry policy
// spends its attempts only on rate limits, server faults and the network.
type Client interface {
	Complete(ctx context.Context, req Request) (Response, error)
}

// Chat roles used in Message.Role.
const (
	RoleSystem    = "system"
	RoleUser      = "user"
	RoleAssistant = "assistant"
	RoleTool      = "tool"
)

// PhaseLine starts the first line of every request's system message,
// followed by the phase (one of the Phase* constants): "planmode phase:
// plan". The prompts write it and the offline model reads it, so that a
// log, a proxy or the offline model can tell the phases apart without
// parsing prose.
const PhaseLine = "planmode phase: "

// LLM phases as named in prompts, per-phase settings and usage counts.
// Every request's first system message starts with PhaseLine and the
// phase.
const (
	PhaseClarify   = "clarify"
	PhasePlan      = "plan"
	PhaseExecute   = "execute"
	PhaseAgent     = "agent"
	PhaseReflect   = "reflect"
	PhaseSummarize = "summarize"
)

// ResponseFormat says what shape of reply a request asks for.
type ResponseFormat string

// Response formats.
const (
	// FormatText asks for free text (the zero value).
	FormatText ResponseFormat = ""
	// FormatJSON asks for one JSON object: JSON mode, or JSON schema when
	// Request.Schema is set and the provider supports it.
	FormatJSON ResponseFormat = "json"
)

// JSONSchema names a JSON schema a structured reply must follow.
type JSONSchema struct {
	Name   string          `json:"name"`
	Schema json.RawMessage `json:"schema"`
}

// ToolSpec describes a tool the model may call: its name, what it does and
// a JSON schema object for its arguments.
type ToolSpec struct {
	Name        string          `json:"name"`
	Description string          `json:"description"`
	Parameters  json.RawMessage `json:"parameters,omitempty"`
}

// ToolCall is a call to a tool, as the model asked for it or a tool step
// configures it.
type ToolCall struct {
	ID        string `json:"id,omitempty"`
	Name      string `json:"name"`
	Arguments string `json:"arguments"`
}

// Message is one chat message. An agent step keeps its own short
// transcript of them in workflow history, so its JSON shape is part of
// the wire contract.
type Message struct {
	Role       string     `json:"role"`
	Content    string     `json:"content,omitempty"`
	ToolCalls  []ToolCall `json:"toolCalls,omitempty"`
	ToolCallID string     `json:"toolCallId,omitempty"`
}

// Request is one chat completion request.
type Request struct {
	// Phase is one of the Phase* constants; the adapter picks the phase's
	// model and temperature from its configuration.
	Phase string `json:"phase"`
	// Model overrides the configured model when set (a step's own model).
	Model    string     `json:"model,omitempty"`
	Messages []Message  `json:"messages"`
	Tools    []ToolSpec `json:"tools,omitempty"`
	// Temperature overrides the configured temperature when set.
	Temperature *float64       `json:"temperature,omitempty"`
	MaxTokens   int            `json:"maxTokens,omitempty"`
	Format      ResponseFormat `json:"format,omitempty"`
	// Schema is used with FormatJSON when the provider supports JSON schema.
	Schema *JSONSchema `json:"schema,omitempty"`
	// OnText, when set, asks for the reply as it is written: the adapter
	// streams the call where the provider can, and calls OnText with each
	// delta of the reply's content, in order, from the calling goroutine;
	// the arguments of tool calls never reach it. The Response is the same
	// either way. A provider that cannot stream answers in one piece and
	// OnText is not called. nil makes a plain call.
	OnText func(delta string) `json:"-"`
}

// FinishLength is the finish reason of a reply the token limit cut off.
const FinishLength = "length"

// Response is the model's reply: text, tool calls or both.
type Response struct {
	Content   string     `json:"content"`
	ToolCalls []ToolCall `json:"toolCalls,omitempty"`
	// Usage holds the token counts of this call; cost is added by the
	// caller from its price table.
	Usage plan.Usage `json:"usage"`
	// FinishReason is the provider's: "stop", "length", "tool_calls", ...
	FinishReason string `json:"finishReason,omitempty"`
	// Model is the model that answered.
	Model string `json:"model,omitempty"`
}
