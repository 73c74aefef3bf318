package activities

import (
	"context"
	"fmt"
	"net/http"
	"time"
)

// LLMConfig configures the go-openai adapter. The zero value talks to
// api.openai.com with no key; set BaseURL, APIKey and Model for any
// OpenAI-compatible provider, the offline model on loopback included.
type LLMConfig struct {
	// BaseURL is the API root, usually ending in "/v1". Empty means OpenAI.
	BaseURL string `json:"baseURL,omitempty" mapstructure:"baseURL" yaml:"baseURL"`
	// APIKey is sent as a bearer token (api-key header for Azure). It never
	// leaves the worker: no activity input or output carries it.
	APIKey string `json:"-" mapstructure:"apiKey" yaml:"apiKey"`
	// Model is the default model; Phases may override it per phase.
	Model string `json:"model,omitempty" mapstructure:"model" yaml:"model"`
	// Temperature is the default sampling temperature; nil leaves it to the
	// provider. Zero is sent as zero.
	Temperature *float64 `json:"temperature,omitempty" mapstructure:"temperature" yaml:"temperature"`
	// RequestTimeout bounds one HTTP request; zero means two minutes.
	RequestTimeout time.Duration `json:"requestTimeout,omitempty" mapstructure:"requestTimeout" yaml:"requestTimeout"`
	// Phases holds per-phase overrides keyed by the Phase* constants
	// (clarify, plan, execute, agent, reflect, summarize).
	Phases map[string]PhaseConfig `json:"phases,omitempty" mapstructure:"phases" yaml:"phases"`
	// JSONSchema says the provider accepts response_format json_schema;
	// otherwise structured phases use JSON mode (json_object).
	JSONSchema bool `json:"jsonSchema,omitempty" mapstructure:"jsonSchema" yaml:"jsonSchema"`
	// Organization is sent as the OpenAI-Organization header when set.
	Organization string `json:"organization,omitempty" mapstructure:"organization" yaml:"organization"`
	// APIType is "openai" (the default), "azure" or "azure_ad".
	APIType APIType `json:"apiType,omitempty" mapstructure:"apiType" yaml:"apiType"`
	// AzureAPIVersion overrides the Azure API version of go-openai's
	// DefaultAzureConfig.
	AzureAPIVersion string `json:"azureAPIVersion,omitempty" mapstructure:"azureAPIVersion" yaml:"azureAPIVersion"`
	// HTTPClient replaces the HTTP client (its Timeout is then its own).
	HTTPClient *http.Client `json:"-" mapstructure:"-" yaml:"-"`
}

// PhaseConfig overrides the model and temperature of one phase.
type PhaseConfig struct {
	Model       string   `json:"model,omitempty" mapstructure:"model" yaml:"model"`
	Temperature *float64 `json:"temperature,omitempty" mapstructure:"temperature" yaml:"temperature"`
}

// APIType names the provider's API flavour.
type APIType string

// API types.
const (
	APITypeOpenAI  APIType = "openai"
	APITypeAzure   APIType = "azure"
	APITypeAzureAD APIType = "azure_ad"
)

// DefaultRequestTimeout bounds one LLM request when LLMConfig sets none.
const DefaultRequestTimeout = 2 * time.Minute

// ModelFor returns the model a phase uses: the phase's override, else the
// default model.
func (c LLMConfig) ModelFor(phase string) string {
	if pc, ok := c.Phases[phase]; ok && pc.Model != "" {
		return pc.Model
	}
	return c.Model
}

// TemperatureFor returns the temperature a phase uses, nil for the
// provider's default.
func (c LLMConfig) TemperatureFor(phase string) *float64 {
	if pc, ok := c.Phases[phase]; ok && pc.Temperature != nil {
		return pc.Temperature
	}
	return c.Temperature
}

// Default limits of the LLM side.
const (
	// DefaultOutputLimit bounds a step's output kept in workflow history.
	DefaultOutputLimit = 4 << 10
	// DefaultHeartbeatInterval is how often a long LLM call heartbeats.
	DefaultHeartbeatInterval = 10 * time.Second
	// DefaultMaxIterations caps an agent step's turns when neither the
	// turn's input nor the step says (gollem's default).
	DefaultMaxIterations = 16
)

// llmDeps are the LLM side's dependencies.
type llmDeps struct {
	llm       LLM
	llmConfig LLMConfig
	pricing   Pricing
	offline   bool
	toolSpecs ToolSpecs
	// outputLimit bounds StepResult.Output; zero means DefaultOutputLimit.
	outputLimit int
	// heartbeat is the heartbeat interval; zero means the default.
	heartbeat time.Duration
}

// WithLLM sets the model the LLM activities call. It takes precedence over
// WithLLMConfig whatever the order. Without either, every LLM activity
// fails with a non-retryable LLMConfigError.
func WithLLM(llm LLM) Option {
	return func(a *Activities) { a.llm = llm }
}

// WithLLMConfig builds the go-openai adapter from cfg (see NewOpenAI). A
// config NewOpenAI refuses makes every LLM activity fail with a
// non-retryable LLMConfigError that says why.
func WithLLMConfig(cfg LLMConfig) Option {
	return func(a *Activities) {
		a.llmConfig = cfg
		switch a.llm.(type) {
		case nil, *OpenAI, brokenLLM:
		default:
			return // WithLLM came first and wins
		}
		o, err := NewOpenAI(cfg)
		if err != nil {
			a.llm = brokenLLM{err: err}
			return
		}
		a.llm = o
	}
}

// WithPricing sets the price table used to cost every call. The default is
// DefaultPricing; models not in the table cost zero.
func WithPricing(p Pricing) Option {
	return func(a *Activities) { a.pricing = p }
}

// WithOffline marks outputs as coming from the offline model, so that
// results can say no real LLM was used. Default false.
func WithOffline(offline bool) Option {
	return func(a *Activities) { a.offline = offline }
}

// WithToolSpecs sets where agent turns and planning prompts get tool specs.
// The default is the specs of the tools RunTool runs (see WithTools).
func WithToolSpecs(s ToolSpecs) Option {
	return func(a *Activities) { a.toolSpecs = s }
}

// WithOutputLimit bounds the step output kept in StepResult.Output, in
// bytes. Default DefaultOutputLimit (4 KiB).
func WithOutputLimit(n int) Option {
	return func(a *Activities) { a.outputLimit = n }
}

// WithHeartbeatInterval sets how often an LLM call heartbeats while it
// runs inside an activity. Default DefaultHeartbeatInterval.
func WithHeartbeatInterval(d time.Duration) Option {
	return func(a *Activities) { a.heartbeat = d }
}

// brokenLLM fails every call with the configuration error that made it.
type brokenLLM struct{ err error }

// Complete returns the configuration error, non-retryable.
func (b brokenLLM) Complete(context.Context, Request) (Response, error) {
	return Response{}, fail(ErrConfig, b.err, fmt.Sprintf("the LLM is misconfigured: %v", b.err))
}
