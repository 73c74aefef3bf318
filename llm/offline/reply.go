package offline

import (
	"encoding/json"
	"strings"
	"time"
	"unicode/utf8"

	openai "github.com/sashabaranov/go-openai"

	"github.com/planmode/planmode/llm"
)

// Reply is one answer of the server: a scripted one from Enqueue or the
// brain's. Its zero value is an empty assistant message with status 200.
type Reply struct {
	// Content is the assistant message's content. With an error Status it
	// is the error message.
	Content string
	// ToolCalls are the assistant's tool calls; their ids are generated
	// "call_<n>", n counting across the server's life.
	ToolCalls []ToolCall
	// Status, when neither 0 nor 200, answers with an OpenAI-style JSON
	// error body {"error":{"message","type","code"}}.
	Status int
	// RetryAfter sets the Retry-After header, e.g. "2" with Status 429.
	RetryAfter string
	// Delay is waited before answering, on top of the server's latency.
	Delay time.Duration
	// Hang never answers: the request ends when the client gives up or
	// the server is closed, with the connection dropped.
	Hang bool
	// RawBody is sent verbatim with Status (or 200), for malformed
	// responses. No usage is counted for it.
	RawBody string
	// FinishReason defaults to "stop", or "tool_calls" when ToolCalls are
	// set; "length" simulates a truncated answer.
	FinishReason string
}

// ToolCall is one tool call of a Reply. Arguments is a JSON document.
type ToolCall struct {
	Name      string
	Arguments string
}

// JSONReply returns a Reply whose content is v encoded as JSON; it panics
// if v cannot be encoded, which is a bug in the caller's test.
func JSONReply(v any) Reply {
	b, err := json.Marshal(v)
	if err != nil {
		panic("offline: encode reply: " + err.Error())
	}
	return Reply{Content: string(b)}
}

// Brain answers a request that no scripted reply answers.
type Brain interface {
	Reply(phase string, req openai.ChatCompletionRequest) Reply
}

// BrainFunc adapts a function to Brain.
type BrainFunc func(phase string, req openai.ChatCompletionRequest) Reply

// Reply calls f.
func (f BrainFunc) Reply(phase string, req openai.ChatCompletionRequest) Reply {
	return f(phase, req)
}

// phasePrefix is the first line's prefix of every planmode request's first
// system message.
const phasePrefix = llm.PhaseLine

// ParsePhase returns the phase named by the first line of the first system
// message, or PhaseUnknown.
func ParsePhase(msgs []openai.ChatCompletionMessage) string {
	for _, m := range msgs {
		if m.Role != openai.ChatMessageRoleSystem {
			continue
		}
		first, _, _ := strings.Cut(messageText(m), "\n")
		rest, ok := strings.CutPrefix(strings.TrimSpace(first), phasePrefix)
		if !ok || strings.TrimSpace(rest) == "" {
			return PhaseUnknown
		}
		return strings.TrimSpace(rest)
	}
	return PhaseUnknown
}

// messageText returns a message's text, whether it came as a string or as
// parts.
func messageText(m openai.ChatCompletionMessage) string {
	if len(m.MultiContent) == 0 {
		return m.Content
	}
	var b strings.Builder
	for _, p := range m.MultiContent {
		b.WriteString(p.Text)
	}
	return b.String()
}

// CountUsage returns the deterministic token counts the server reports:
// prompt tokens are the characters of every message's content and tool
// call arguments plus the tool specs' JSON, divided by four and rounded
// up; completion tokens likewise over the reply's content and tool call
// arguments.
func CountUsage(req openai.ChatCompletionRequest, r Reply) openai.Usage {
	prompt := 0
	for _, m := range req.Messages {
		prompt += utf8.RuneCountInString(messageText(m))
		for _, tc := range m.ToolCalls {
			prompt += utf8.RuneCountInString(tc.Function.Arguments)
		}
	}
	if len(req.Tools) > 0 {
		if b, err := json.Marshal(req.Tools); err == nil {
			prompt += utf8.RuneCount(b)
		}
	}
	completion := utf8.RuneCountInString(r.Content)
	for _, tc := range r.ToolCalls {
		completion += utf8.RuneCountInString(tc.Arguments)
	}
	u := openai.Usage{PromptTokens: tokens(prompt), CompletionTokens: tokens(completion)}
	u.TotalTokens = u.PromptTokens + u.CompletionTokens
	return u
}

// tokens converts characters to tokens, four to one, rounding up.
func tokens(chars int) int { return (chars + 3) / 4 }

// wantsJSON reports whether the request asked for a JSON response format.
func wantsJSON(req openai.ChatCompletionRequest) bool {
	if req.ResponseFormat == nil {
		return false
	}
	switch req.ResponseFormat.Type {
	case openai.ChatCompletionResponseFormatTypeJSONObject, openai.ChatCompletionResponseFormatTypeJSONSchema:
		return true
	}
	return false
}

// ensureJSON makes a brain's prose reply valid JSON when the request asked
// for JSON, by wrapping it as {"response": ...}.
func ensureJSON(req openai.ChatCompletionRequest, r Reply) Reply {
	if !wantsJSON(req) || len(r.ToolCalls) > 0 || json.Valid([]byte(r.Content)) {
		return r
	}
	b, _ := json.Marshal(map[string]string{"response": r.Content})
	r.Content = string(b)
	return r
}
