package llm

import (
	"net/http"
	"time"
)

// Config configures the go-openai adapter (llm/openai). The zero value
// talks to api.openai.com with no key; set BaseURL, APIKey and Model for
// any OpenAI-compatible provider, the offline model on loopback included.
type Config struct {
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
	// Stream makes the activities ask for the text of every model call as
	// it is written (Request.OnText) and heartbeat it, so that a person
	// following a plan reads it while the call runs; none of it reaches
	// workflow history. The configuration's llm.stream sets it, true by
	// default; the zero Config does not stream.
	Stream bool `json:"stream,omitempty" mapstructure:"stream" yaml:"stream"`
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

// DefaultRequestTimeout bounds one LLM request when Config sets none.
const DefaultRequestTimeout = 2 * time.Minute

// ModelFor returns the model a phase uses: the phase's override, else the
// default model.
func (c Config) ModelFor(phase string) string {
	if pc, ok := c.Phases[phase]; ok && pc.Model != "" {
		return pc.Model
	}
	return c.Model
}

// TemperatureFor returns the temperature a phase uses, nil for the
// provider's default.
func (c Config) TemperatureFor(phase string) *float64 {
	if pc, ok := c.Phases[phase]; ok && pc.Temperature != nil {
		return pc.Temperature
	}
	return c.Temperature
}
