package openai

import (
	"cmp"
	"context"
	"errors"
	"io"
	"net/http"
	"slices"
	"strings"

	goopenai "github.com/sashabaranov/go-openai"

	"github.com/planmode/planmode/llm"
)

// errNotStreamed says a provider answered a streamed request without
// streaming: a JSON body, or no event at all. Nothing reached OnText.
var errNotStreamed = errors.New("the LLM provider answered a streamed request without streaming")

// stream makes creq as a streamed call, asking for the usage in its last
// event, hands each delta of the first choice's content to onText, and
// assembles the reply as complete returns it. It returns the response's
// headers with the error, those of a refused request included (go-openai
// keeps none of them: headerKeeper does).
func (o *Client) stream(ctx context.Context, creq goopenai.ChatCompletionRequest, onText func(string)) (llm.Response,
	http.Header, error) {
	kept := new(keptHeader)
	ctx = context.WithValue(ctx, keptHeaderKey{}, kept)
	creq.Stream = true
	creq.StreamOptions = &goopenai.StreamOptions{IncludeUsage: true}
	s, err := o.client.CreateChatCompletionStream(ctx, creq)
	if err != nil {
		return llm.Response{}, kept.header, err
	}
	defer s.Close()
	header := s.Header()
	if strings.HasPrefix(header.Get("Content-Type"), "application/json") {
		return llm.Response{}, header, errNotStreamed
	}
	var a assembly
	for {
		chunk, err := s.Recv()
		switch {
		case errors.Is(err, io.EOF):
			if a.events == 0 {
				return llm.Response{}, header, errNotStreamed
			}
			resp, err := a.response(creq.Model)
			return resp, header, err
		case errors.Is(err, goopenai.ErrTooManyEmptyStreamMessages) && a.events == 0:
			return llm.Response{}, header, errNotStreamed
		case err != nil:
			return llm.Response{}, header, err
		}
		a.add(chunk, onText)
	}
}

// assembly gathers a streamed reply: the first choice's content and tool
// calls, its finish reason, the model and the usage.
type assembly struct {
	events  int
	choices int
	content strings.Builder
	calls   []*streamedCall
	finish  string
	model   string
	usage   *goopenai.Usage
}

// streamedCall is one tool call as its deltas build it.
type streamedCall struct {
	index int
	id    string
	name  string
	args  strings.Builder
}

// add takes one event of the stream.
func (a *assembly) add(chunk goopenai.ChatCompletionStreamResponse, onText func(string)) {
	a.events++
	if chunk.Model != "" {
		a.model = chunk.Model
	}
	if chunk.Usage != nil {
		a.usage = chunk.Usage
	}
	for _, ch := range chunk.Choices {
		if ch.Index != 0 {
			continue
		}
		a.choices++
		if d := ch.Delta.Content; d != "" {
			a.content.WriteString(d)
			onText(d)
		}
		for _, tc := range ch.Delta.ToolCalls {
			a.addCall(tc)
		}
		if ch.FinishReason != "" {
			a.finish = string(ch.FinishReason)
		}
	}
}

// addCall takes one tool call delta: the call of its index, whose
// arguments arrive in pieces. A provider that numbers no call starts a
// new one with each id and goes on with the last otherwise.
func (a *assembly) addCall(tc goopenai.ToolCall) {
	var c *streamedCall
	switch {
	case tc.Index != nil:
		i := slices.IndexFunc(a.calls, func(c *streamedCall) bool { return c.index == *tc.Index })
		if i < 0 {
			a.calls = append(a.calls, &streamedCall{index: *tc.Index})
			i = len(a.calls) - 1
		}
		c = a.calls[i]
	case tc.ID != "" || len(a.calls) == 0:
		next := 0
		for _, prior := range a.calls {
			next = max(next, prior.index+1)
		}
		a.calls = append(a.calls, &streamedCall{index: next})
		c = a.calls[len(a.calls)-1]
	default:
		c = a.calls[len(a.calls)-1]
	}
	if c.id == "" {
		c.id = tc.ID
	}
	if c.name == "" {
		c.name = tc.Function.Name
	}
	c.args.WriteString(tc.Function.Arguments)
}

// response is the reply the stream told: as complete returns it, model
// the one asked for when the stream named none.
func (a *assembly) response(model string) (llm.Response, error) {
	if a.choices == 0 {
		return llm.Response{}, noChoices()
	}
	out := llm.Response{Content: a.content.String(), FinishReason: a.finish, Model: cmp.Or(a.model, model)}
	if a.usage != nil {
		out.Usage = usage(*a.usage)
	} else {
		out.Usage.Calls = 1
	}
	slices.SortStableFunc(a.calls, func(x, y *streamedCall) int { return cmp.Compare(x.index, y.index) })
	for _, c := range a.calls {
		out.ToolCalls = append(out.ToolCalls, llm.ToolCall{ID: c.id, Name: c.name, Arguments: c.args.String()})
	}
	return out, nil
}

// refusesStreaming reports whether err (perr once providerError read it)
// is a provider's refusal to stream, before anything streamed: an answer
// without events, go-openai's own refusal, or a 400 or 422 (or a 501)
// whose message, type or code speaks of streaming (stream, stream_options).
func refusesStreaming(err, perr error) bool {
	if errors.Is(err, errNotStreamed) || errors.Is(err, goopenai.ErrChatCompletionStreamNotSupported) {
		return true
	}
	var pe *llm.ProviderError
	if !errors.As(perr, &pe) {
		return false
	}
	switch pe.StatusCode {
	case http.StatusBadRequest, http.StatusUnprocessableEntity, http.StatusNotImplemented:
		return strings.Contains(strings.ToLower(pe.Message+" "+pe.Type+" "+pe.Code), "stream")
	}
	return false
}

// keptHeader holds the headers of the last response to a request whose
// context carries it.
type keptHeader struct{ header http.Header }

// keptHeaderKey is the context key of a keptHeader.
type keptHeaderKey struct{}

// headerKeeper is the adapter's HTTP transport: base's, keeping the
// response headers for a request whose context asks for them. go-openai
// drops the headers of a streamed request the provider refuses, and a
// rate limit's Retry-After is among them.
type headerKeeper struct{ base http.RoundTripper }

// RoundTrip sends r through base and keeps the response's headers.
func (h headerKeeper) RoundTrip(r *http.Request) (*http.Response, error) {
	base := h.base
	if base == nil {
		base = http.DefaultTransport
	}
	resp, err := base.RoundTrip(r)
	if kept, ok := r.Context().Value(keptHeaderKey{}).(*keptHeader); ok && resp != nil {
		kept.header = resp.Header
	}
	return resp, err
}
