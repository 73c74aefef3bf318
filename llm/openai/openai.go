package openai

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	goopenai "github.com/sashabaranov/go-openai"

	"github.com/planmode/planmode/llm"
	"github.com/planmode/planmode/plan"
)

// Client is the LLM adapter for every OpenAI-compatible chat completions
// API, built on go-openai. go-openai does not retry chat requests; the
// adapter does not either: Temporal's activity retry policy owns retries,
// guided by the classified errors the adapter returns. The exceptions are
// refusals of what a request may do without: a provider that refuses
// response_format (JSON mode or JSON schema) gets the same call once more
// without it, the prompt alone asking for JSON, and one that refuses to
// stream gets it once more in one piece; the model is remembered so that
// later calls skip what its provider refused.
type Client struct {
	client *goopenai.Client
	cfg    llm.Config

	// mu guards promptOnly and plain: the models whose provider refused
	// response_format, asked for JSON by the prompt alone from then on,
	// and those whose provider refused to stream, called in one piece,
	// for the adapter's lifetime. Activities call the adapter from many
	// goroutines at once.
	mu         sync.Mutex
	promptOnly map[string]bool
	plain      map[string]bool
}

// New returns the adapter for cfg. It returns an error when the base
// URL is not an http(s) URL, when an Azure API type has no base URL, or
// when the API type is unknown.
func New(cfg llm.Config) (*Client, error) {
	cc, err := clientConfig(cfg)
	if err != nil {
		return nil, err
	}
	hc := &http.Client{Timeout: cfg.RequestTimeout}
	if cfg.HTTPClient != nil {
		copied := *cfg.HTTPClient
		hc = &copied
	} else if hc.Timeout <= 0 {
		hc.Timeout = llm.DefaultRequestTimeout
	}
	hc.Transport = headerKeeper{base: hc.Transport}
	cc.HTTPClient = hc
	cc.OrgID = cfg.Organization
	return &Client{client: goopenai.NewClientWithConfig(cc), cfg: cfg, promptOnly: map[string]bool{},
		plain: map[string]bool{}}, nil
}

// clientConfig picks go-openai's default config for the API type.
func clientConfig(cfg llm.Config) (goopenai.ClientConfig, error) {
	if cfg.BaseURL != "" {
		u, err := url.Parse(cfg.BaseURL)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return goopenai.ClientConfig{}, fmt.Errorf("llm.baseURL %q is not an http(s) URL", cfg.BaseURL)
		}
	}
	switch cfg.APIType {
	case "", llm.APITypeOpenAI:
		cc := goopenai.DefaultConfig(cfg.APIKey)
		if cfg.BaseURL != "" {
			cc.BaseURL = cfg.BaseURL
		}
		return cc, nil
	case llm.APITypeAzure, llm.APITypeAzureAD:
		if cfg.BaseURL == "" {
			return goopenai.ClientConfig{}, errors.New("llm.baseURL is required for Azure")
		}
		cc := goopenai.DefaultAzureConfig(cfg.APIKey, cfg.BaseURL)
		if cfg.APIType == llm.APITypeAzureAD {
			cc.APIType = goopenai.APITypeAzureAD
		}
		if cfg.AzureAPIVersion != "" {
			cc.APIVersion = cfg.AzureAPIVersion
		}
		return cc, nil
	}
	return goopenai.ClientConfig{}, fmt.Errorf("llm.apiType %q is unknown: use openai, azure or azure_ad", cfg.APIType)
}

// Config returns the adapter's configuration.
func (o *Client) Config() llm.Config { return o.cfg }

// Complete sends one chat completion request and returns the first choice:
// streamed, its content handed to req.OnText as it arrives, when OnText
// is set and the model's provider did not refuse to stream. Errors are
// classified with ClassifyError.
func (o *Client) Complete(ctx context.Context, req llm.Request) (llm.Response, error) {
	creq, err := o.chatRequest(req)
	if err != nil {
		return llm.Response{}, err
	}
	if creq.ResponseFormat != nil && o.isPromptOnly(creq.Model) {
		creq.ResponseFormat = nil
	}
	streamed := req.OnText != nil && !o.isPlain(creq.Model)
	for {
		var resp llm.Response
		var header http.Header
		if streamed {
			resp, header, err = o.stream(ctx, creq, req.OnText)
		} else {
			resp, header, err = o.complete(ctx, creq)
		}
		if err == nil {
			return resp, nil
		}
		perr := providerError(err, header, creq.Model)
		switch {
		case creq.ResponseFormat != nil && refusesResponseFormat(perr):
			// The prompts ask for JSON in words too, and Structured repairs
			// a reply that is not, so the same call goes again without it.
			o.setPromptOnly(creq.Model)
			creq.ResponseFormat = nil
		case streamed && refusesStreaming(err, perr):
			// Nothing reached OnText: the call goes again in one piece.
			o.setPlain(creq.Model)
			streamed = false
		default:
			return llm.Response{}, llm.ClassifyError(perr)
		}
	}
}

// complete makes creq in one piece and returns the first choice and the
// response's headers.
func (o *Client) complete(ctx context.Context, creq goopenai.ChatCompletionRequest) (llm.Response, http.Header, error) {
	resp, err := o.client.CreateChatCompletion(ctx, creq)
	if err != nil {
		return llm.Response{}, resp.Header(), err
	}
	if len(resp.Choices) == 0 {
		return llm.Response{}, resp.Header(), noChoices()
	}
	choice := resp.Choices[0]
	out := llm.Response{
		Content:      choice.Message.Content,
		FinishReason: string(choice.FinishReason),
		Model:        resp.Model,
		Usage:        usage(resp.Usage),
	}
	if out.Model == "" {
		out.Model = creq.Model
	}
	for _, tc := range choice.Message.ToolCalls {
		out.ToolCalls = append(out.ToolCalls, llm.ToolCall{ID: tc.ID, Name: tc.Function.Name, Arguments: tc.Function.Arguments})
	}
	return out, resp.Header(), nil
}

// noChoices is the error of an answer without a choice.
func noChoices() error {
	return llm.Retry(llm.ErrorTypeInvalidResponse, nil, "the LLM provider answered with no choices", 0)
}

// usage is one call's token counts.
func usage(u goopenai.Usage) plan.Usage {
	return plan.Usage{PromptTokens: u.PromptTokens, CompletionTokens: u.CompletionTokens, TotalTokens: u.TotalTokens,
		Calls: 1}
}

// isPromptOnly reports whether model's provider refused response_format.
func (o *Client) isPromptOnly(model string) bool {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.promptOnly[model]
}

// setPromptOnly remembers that model's provider refuses response_format.
func (o *Client) setPromptOnly(model string) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.promptOnly[model] = true
}

// isPlain reports whether model's provider refused to stream.
func (o *Client) isPlain(model string) bool {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.plain[model]
}

// setPlain remembers that model's provider refuses to stream.
func (o *Client) setPlain(model string) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.plain[model] = true
}

// formatWords are what a provider's refusal of response_format says, in
// the words of the servers seen so far (OpenAI-compatible servers that
// know no JSON mode or no JSON schema).
var formatWords = []string{"response_format", "response format", "responseformat", "json_schema", "json schema",
	"json_object", "json mode", "structured output"}

// refusesResponseFormat reports whether err is a provider's refusal of
// the request's response_format: a 400 (or 422, as some servers answer a
// field they do not know) whose message, type or code mentions it.
func refusesResponseFormat(err error) bool {
	var pe *llm.ProviderError
	if !errors.As(err, &pe) || (pe.StatusCode != http.StatusBadRequest && pe.StatusCode != http.StatusUnprocessableEntity) {
		return false
	}
	text := strings.ToLower(pe.Message + " " + pe.Type + " " + pe.Code)
	for _, w := range formatWords {
		if strings.Contains(text, w) {
			return true
		}
	}
	return false
}

// chatRequest maps a Request to go-openai's, applying the phase's model
// and temperature.
func (o *Client) chatRequest(req llm.Request) (goopenai.ChatCompletionRequest, error) {
	model := req.Model
	if model == "" {
		model = o.cfg.ModelFor(req.Phase)
	}
	if model == "" {
		return goopenai.ChatCompletionRequest{}, llm.Fail(llm.ErrorTypeConfig, nil, "no model configured: set llm.model")
	}
	creq := goopenai.ChatCompletionRequest{Model: model, Messages: chatMessages(req.Messages)}
	temp := req.Temperature
	if temp == nil {
		temp = o.cfg.TemperatureFor(req.Phase)
	}
	if reasoningModel(model) {
		// Reasoning models take max_completion_tokens and no temperature.
		creq.MaxCompletionTokens = req.MaxTokens
	} else {
		// Ollama, vLLM and llama.cpp know only max_tokens.
		//lint:ignore SA1019 max_tokens is what OpenAI-compatible servers accept.
		creq.MaxTokens = req.MaxTokens
		if temp != nil {
			// go-openai omits a zero temperature; the smallest float32 is
			// zero in effect and survives the omitempty.
			creq.Temperature = float32(math.Max(*temp, math.SmallestNonzeroFloat32))
		}
	}
	for _, t := range req.Tools {
		creq.Tools = append(creq.Tools, chatTool(t))
	}
	if req.Format == llm.FormatJSON {
		creq.ResponseFormat = &goopenai.ChatCompletionResponseFormat{Type: goopenai.ChatCompletionResponseFormatTypeJSONObject}
		if o.cfg.JSONSchema && req.Schema != nil {
			creq.ResponseFormat = &goopenai.ChatCompletionResponseFormat{
				Type: goopenai.ChatCompletionResponseFormatTypeJSONSchema,
				JSONSchema: &goopenai.ChatCompletionResponseFormatJSONSchema{
					Name:   req.Schema.Name,
					Schema: req.Schema.Schema,
				},
			}
		}
	}
	return creq, nil
}

// reasoningModel reports whether go-openai treats model as a reasoning
// model, which refuses max_tokens and a temperature other than 1.
func reasoningModel(model string) bool {
	for _, p := range []string{"o1", "o3", "o4", "gpt-5", "gpt-6"} {
		if strings.HasPrefix(model, p) {
			return true
		}
	}
	return false
}

// chatMessages maps transcript messages to go-openai's.
func chatMessages(msgs []llm.Message) []goopenai.ChatCompletionMessage {
	out := make([]goopenai.ChatCompletionMessage, 0, len(msgs))
	for _, m := range msgs {
		cm := goopenai.ChatCompletionMessage{Role: m.Role, Content: m.Content, ToolCallID: m.ToolCallID}
		if m.Role == llm.RoleTool && cm.Content == "" {
			cm.Content = "(no output)" // providers refuse a tool message without content
		}
		for _, tc := range m.ToolCalls {
			cm.ToolCalls = append(cm.ToolCalls, goopenai.ToolCall{
				ID:       tc.ID,
				Type:     goopenai.ToolTypeFunction,
				Function: goopenai.FunctionCall{Name: tc.Name, Arguments: tc.Arguments},
			})
		}
		out = append(out, cm)
	}
	return out
}

// chatTool maps a tool spec to a function tool.
func chatTool(t llm.ToolSpec) goopenai.Tool {
	params := t.Parameters
	if len(params) == 0 {
		params = json.RawMessage(`{"type":"object","properties":{}}`)
	}
	return goopenai.Tool{
		Type:     goopenai.ToolTypeFunction,
		Function: &goopenai.FunctionDefinition{Name: t.Name, Description: t.Description, Parameters: params},
	}
}

// requestSentinels are go-openai's refusals of a request before sending:
// a retry cannot fix them.
var requestSentinels = []error{
	goopenai.ErrChatCompletionInvalidModel, goopenai.ErrChatCompletionStreamNotSupported,
	goopenai.ErrReasoningModelMaxTokensDeprecated, goopenai.ErrReasoningModelLimitationsLogprobs,
	goopenai.ErrReasoningModelLimitationsOther, goopenai.ErrReasoningEffortUnsupported,
	goopenai.ErrReasoningToolsRequireResponses, goopenai.ErrReasoningSamplingUnsupported,
	goopenai.ErrContentFieldsMisused,
}

// providerError turns go-openai's error answers into a ProviderError
// carrying the Retry-After of the response headers; other errors are
// returned as they are.
func providerError(err error, h http.Header, model string) error {
	for _, s := range requestSentinels {
		if errors.Is(err, s) {
			return llm.Fail(llm.ErrorTypeBadRequest, err, fmt.Sprintf("go-openai refused the request for model %q", model))
		}
	}
	wait := llm.ParseRetryAfter(h, time.Now())
	var apiErr *goopenai.APIError
	if errors.As(err, &apiErr) {
		pe := &llm.ProviderError{StatusCode: apiErr.HTTPStatusCode, Type: apiErr.Type, Message: apiErr.Message,
			Model: model, RetryAfter: wait}
		if apiErr.Code != nil {
			pe.Code = fmt.Sprint(apiErr.Code)
		}
		return pe
	}
	var reqErr *goopenai.RequestError
	if errors.As(err, &reqErr) {
		msg := strings.TrimSpace(string(reqErr.Body))
		if msg == "" && reqErr.Err != nil {
			msg = reqErr.Err.Error()
		}
		return &llm.ProviderError{StatusCode: reqErr.HTTPStatusCode, Message: plan.TruncateBytes(msg, 500), Model: model,
			RetryAfter: wait}
	}
	return err
}
