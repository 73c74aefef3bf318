package offline

import (
	"encoding/json"
	"fmt"
	"net/http"

	openai "github.com/sashabaranov/go-openai"
)

// writeStream sends resp as server-sent events the way OpenAI streams a
// chat completion: one chunk with the whole message, one with the finish
// reason, an optional usage chunk, then "[DONE]".
func writeStream(w http.ResponseWriter, resp openai.ChatCompletionResponse, includeUsage bool) {
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	w.WriteHeader(http.StatusOK)
	choice := resp.Choices[0]
	delta := openai.ChatCompletionStreamChoiceDelta{
		Role:    openai.ChatMessageRoleAssistant,
		Content: choice.Message.Content,
	}
	for i, tc := range choice.Message.ToolCalls {
		idx := i
		tc.Index = &idx
		delta.ToolCalls = append(delta.ToolCalls, tc)
	}
	chunk := func(choices []openai.ChatCompletionStreamChoice, u *openai.Usage) openai.ChatCompletionStreamResponse {
		return openai.ChatCompletionStreamResponse{
			ID: resp.ID, Object: "chat.completion.chunk", Created: resp.Created, Model: resp.Model,
			Choices: choices, SystemFingerprint: resp.SystemFingerprint, Usage: u,
		}
	}
	events := []openai.ChatCompletionStreamResponse{
		chunk([]openai.ChatCompletionStreamChoice{{Delta: delta}}, nil),
		chunk([]openai.ChatCompletionStreamChoice{{FinishReason: choice.FinishReason}}, nil),
	}
	if includeUsage {
		u := resp.Usage
		events = append(events, chunk([]openai.ChatCompletionStreamChoice{}, &u))
	}
	for _, ev := range events {
		b, err := json.Marshal(ev)
		if err != nil {
			panic(http.ErrAbortHandler)
		}
		_, _ = fmt.Fprintf(w, "data: %s\n\n", b)
	}
	_, _ = fmt.Fprint(w, "data: [DONE]\n\n")
	if f, ok := w.(http.Flusher); ok {
		f.Flush()
	}
}
