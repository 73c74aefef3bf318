package activities

import (
	"context"
	"time"

	"go.opentelemetry.io/otel/attribute"

	"github.com/planmode/planmode/internal/heartbeat"
	"github.com/planmode/planmode/llm"
	"github.com/planmode/planmode/llm/phases"
	"github.com/planmode/planmode/metrics"
	"github.com/planmode/planmode/plan"
	"github.com/planmode/planmode/prompts"
)

// DefaultOutputLimit bounds a step's output kept in workflow history when
// Model.OutputLimit is zero.
const DefaultOutputLimit = 4 << 10

// Model carries what the LLM activities need.
type Model struct {
	// LLM is the model called, which the worker builds
	// (worker/planworker); nil fails every call with a non-retryable
	// LLMConfigError.
	LLM llm.Client
	// LLMConfig names the model of each phase, whose price costs usage
	// the reply does not attribute and the estimates of planned steps.
	// With Stream set, the calls stream their text into the activity's
	// heartbeat (see withText).
	LLMConfig llm.Config
	// Pricing costs every call; nil means llm.DefaultPricing() (see
	// llm.Meter).
	Pricing llm.Pricing
	// Prompts are the templates rendered; nil means prompts.Default(). The
	// worker loads an operator's folder into it (llm.promptDir).
	Prompts *prompts.Set
	// Offline marks outputs as the offline model's, so that results can
	// say no real LLM was used.
	Offline bool
	// OutputLimit bounds StepResult.Output, in bytes; zero means
	// DefaultOutputLimit (4 KiB).
	OutputLimit int
	// HeartbeatInterval is how often a running call heartbeats, at most a
	// third of the activity's heartbeat timeout; zero means
	// heartbeat.DefaultInterval (10s).
	HeartbeatInterval time.Duration
	// ToolSpecs hands out the specs offered to agent turns and planning
	// prompts; nil means the specs of the tools Tools runs.
	ToolSpecs phases.ToolSpecs
	// Tools are the tools and workspaces the model looks at (the files
	// listed, the read-only calls of an inspection) and keep its long
	// replies whole; nil means a zero Tools.
	Tools *Tools
}

// noTools are the tools of a Model without any.
var noTools = &Tools{}

// tools returns the tools the model looks at.
func (m *Model) tools() *Tools {
	if m.Tools == nil {
		return noTools
	}
	return m.Tools
}

// specs returns where tool specs come from: ToolSpecs, else the tools
// RunTool runs.
func (m *Model) specs() phases.ToolSpecs {
	if m.ToolSpecs != nil {
		return m.ToolSpecs
	}
	return phases.ToolSpecsOf(m.tools().registry())
}

// meter makes the model's calls and accounts for them.
func (m *Model) meter() llm.Meter {
	return llm.Meter{Client: m.LLM, Config: m.LLMConfig, Pricing: m.Pricing}
}

// outputLimit returns the step output limit.
func (m *Model) outputLimit() int {
	if m.OutputLimit > 0 {
		return m.OutputLimit
	}
	return DefaultOutputLimit
}

// complete makes one LLM call (llm.Meter): it heartbeats while the call
// runs inside an activity (the text so far, when the call streams: see
// withText), and returns the call's usage with its cost. Errors are the
// classified ApplicationErrors to return as they are: Temporal reads the
// type and retryability of an activity error only at the top level, so
// wrapping them would make every failure retryable.
func (m *Model) complete(ctx context.Context, req llm.Request) (llm.Response, plan.Usage, error) {
	meter := m.meter()
	ctx, span := startSpan(ctx, "llm "+req.Phase, attribute.String("planmode.phase", req.Phase),
		attribute.String("planmode.model", meter.ModelOf(req, llm.Response{})))
	if t := heartbeat.TextOf(ctx); t != nil {
		req.OnText = t.Begin(req.Phase)
	}
	stop := heartbeat.Start(ctx, m.HeartbeatInterval, "waiting for the LLM: "+req.Phase)
	start := time.Now()
	resp, u, err := meter.Complete(ctx, req)
	took := time.Since(start)
	stop()
	endSpan(span, err)
	metrics.RecordLLMCall(metricsHandler(ctx), metrics.LLMCall{Phase: req.Phase, Model: meter.ModelOf(req, resp), Duration: took,
		InputTokens: int64(u.PromptTokens), OutputTokens: int64(u.CompletionTokens), CostUSD: u.CostUSD})
	return resp, u, err
}

// withText returns ctx in which the model calls of the activity running
// in it stream their text into its heartbeat (heartbeat.WithText), naming
// stepID ("" for a call that is not a step's); none of it reaches
// workflow history. Without llm.Config.Stream the calls do not stream.
func (m *Model) withText(ctx context.Context, stepID string) context.Context {
	if !m.LLMConfig.Stream {
		return ctx
	}
	return heartbeat.WithText(ctx, stepID)
}
