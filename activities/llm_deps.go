package activities

import (
	"context"
	"fmt"
	"time"

	"github.com/planmode/planmode/llm"
	"github.com/planmode/planmode/llm/openai"
)

// Default limits of the LLM side.
const (
	// DefaultOutputLimit bounds a step's output kept in workflow history.
	DefaultOutputLimit = 4 << 10
	// DefaultMaxIterations caps an agent step's turns when neither the
	// turn's input nor the step says (gollem's default).
	DefaultMaxIterations = 16
)

// llmDeps are the LLM side's dependencies.
type llmDeps struct {
	llm       llm.Client
	llmConfig llm.Config
	pricing   llm.Pricing
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
func WithLLM(model llm.Client) Option {
	return func(a *Activities) { a.llm = model }
}

// WithLLMConfig builds the go-openai adapter from cfg (see openai.New). A
// config openai.New refuses makes every LLM activity fail with a
// non-retryable LLMConfigError that says why.
func WithLLMConfig(cfg llm.Config) Option {
	return func(a *Activities) {
		a.llmConfig = cfg
		switch a.llm.(type) {
		case nil, *openai.Client, brokenLLM:
		default:
			return // WithLLM came first and wins
		}
		o, err := openai.New(cfg)
		if err != nil {
			a.llm = brokenLLM{err: err}
			return
		}
		a.llm = o
	}
}

// WithPricing sets the price table used to cost every call. The default is
// DefaultPricing; models not in the table cost zero.
func WithPricing(p llm.Pricing) Option {
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
// runs inside an activity, at most a third of the activity's heartbeat
// timeout. Default heartbeat.DefaultInterval (10s).
func WithHeartbeatInterval(d time.Duration) Option {
	return func(a *Activities) { a.heartbeat = d }
}

// ToolSpecs hands out tool specs by name. Nil or empty names ask for every
// tool; unknown names are left out.
type ToolSpecs interface {
	Specs(names []string) []llm.ToolSpec
}

// brokenLLM fails every call with the configuration error that made it.
type brokenLLM struct{ err error }

// Complete returns the configuration error, non-retryable.
func (b brokenLLM) Complete(context.Context, llm.Request) (llm.Response, error) {
	return llm.Response{}, llm.Fail(llm.ErrConfig, b.err, fmt.Sprintf("the LLM is misconfigured: %v", b.err))
}
