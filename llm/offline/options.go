package offline

import "time"

// DefaultModel is the model id the server serves when WithModel is not
// given.
const DefaultModel = "planmode-offline"

// ServerOption configures a Server. (An "option" in planmode is a plan
// option; this one is a setting of the server.)
type ServerOption func(*config)

// config holds a Server's settings; its zero value plus DefaultModel and
// the offline brain are the defaults.
type config struct {
	latency time.Duration
	brain   Brain
	model   string
	apiKey  string
}

// WithLatency makes every reply take d, on top of the reply's own Delay:
// a plain reply waits d before it is sent, a streamed one spreads d over
// its events, so that its text arrives gradually. A client that gives up
// earlier gets no reply, or the rest of it. The default is no latency.
func WithLatency(d time.Duration) ServerOption {
	return func(c *config) { c.latency = d }
}

// WithBrain sets what answers when no scripted reply is queued. The
// default is the offline brain, NewOfflineBrain().
func WithBrain(b Brain) ServerOption {
	return func(c *config) { c.brain = b }
}

// WithModel sets the model id listed by /v1/models and echoed in replies
// to requests that name no model. The default is DefaultModel.
func WithModel(name string) ServerOption {
	return func(c *config) { c.model = name }
}

// WithAPIKey makes the server require "Authorization: Bearer <key>" and
// answer 401 with an OpenAI-style error otherwise. The default accepts any
// request.
func WithAPIKey(key string) ServerOption {
	return func(c *config) { c.apiKey = key }
}
