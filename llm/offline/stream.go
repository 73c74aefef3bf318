package offline

import (
	"encoding/json"
	"fmt"
	"net/http"
	"unicode/utf8"

	openai "github.com/sashabaranov/go-openai"
)

// streamChunkBytes is about how much of a reply's content one streamed
// event carries: a few words, as a provider's tokens arrive.
const streamChunkBytes = 24

// writeStream sends resp as server-sent events the way OpenAI streams a
// chat completion: the content in pieces of about streamChunkBytes (cut
// on rune boundaries, the first piece naming the assistant's role), the
// tool calls whole in one event, one event with the finish reason, an
// optional usage event, then "[DONE]". Before each piece and the tool
// calls it waits for pace, which spreads the server's latency over the
// reply; it flushes after every event. When pace says to stop (the client
// gave up, the server is closing) the connection is dropped.
func writeStream(w http.ResponseWriter, resp openai.ChatCompletionResponse, includeUsage bool, pace func(n int) bool) {
	choice := resp.Choices[0]
	var deltas []openai.ChatCompletionStreamChoiceDelta
	for _, piece := range cutRunes(choice.Message.Content, streamChunkBytes) {
		deltas = append(deltas, openai.ChatCompletionStreamChoiceDelta{Content: piece})
	}
	if len(choice.Message.ToolCalls) > 0 {
		var d openai.ChatCompletionStreamChoiceDelta
		for i, tc := range choice.Message.ToolCalls {
			idx := i
			tc.Index = &idx
			d.ToolCalls = append(d.ToolCalls, tc)
		}
		deltas = append(deltas, d)
	}
	if len(deltas) == 0 {
		deltas = append(deltas, openai.ChatCompletionStreamChoiceDelta{})
	}
	deltas[0].Role = openai.ChatMessageRoleAssistant

	chunk := func(choices []openai.ChatCompletionStreamChoice, u *openai.Usage) openai.ChatCompletionStreamResponse {
		return openai.ChatCompletionStreamResponse{
			ID: resp.ID, Object: "chat.completion.chunk", Created: resp.Created, Model: resp.Model,
			Choices: choices, SystemFingerprint: resp.SystemFingerprint, Usage: u,
		}
	}
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	w.WriteHeader(http.StatusOK)
	flusher, _ := w.(http.Flusher)
	send := func(data string) {
		_, _ = fmt.Fprintf(w, "data: %s\n\n", data)
		if flusher != nil {
			flusher.Flush()
		}
	}
	event := func(ev openai.ChatCompletionStreamResponse) {
		b, err := json.Marshal(ev)
		if err != nil {
			panic(http.ErrAbortHandler)
		}
		send(string(b))
	}
	for _, d := range deltas {
		if !pace(len(deltas)) {
			panic(http.ErrAbortHandler)
		}
		event(chunk([]openai.ChatCompletionStreamChoice{{Delta: d}}, nil))
	}
	event(chunk([]openai.ChatCompletionStreamChoice{{FinishReason: choice.FinishReason}}, nil))
	if includeUsage {
		u := resp.Usage
		event(chunk([]openai.ChatCompletionStreamChoice{}, &u))
	}
	send("[DONE]")
}

// cutRunes cuts s into pieces of at most n bytes that end on rune
// boundaries (a rune longer than n is a piece of its own).
func cutRunes(s string, n int) []string {
	var out []string
	for s != "" {
		end := min(n, len(s))
		for end > 0 && end < len(s) && !utf8.RuneStart(s[end]) {
			end--
		}
		if end == 0 {
			_, end = utf8.DecodeRuneInString(s)
		}
		out = append(out, s[:end])
		s = s[end:]
	}
	return out
}
