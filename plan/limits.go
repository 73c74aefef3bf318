package plan

import "time"

// Hard bounds of every plan, whoever wrote it: a model's options, a
// template, a reflection's edits or a person's. A plan lives in workflow
// history, and each retry, agent turn and step becomes history events, so
// an unbounded number here lets one input grow a run past the server's
// history limit and get it terminated. Validate refuses a plan beyond them,
// and so every edit (see Plan.Apply) and every option. Limits may lower the
// step and iteration bounds for one run, never raise them.
const (
	// MaxPlanSteps is the most steps a plan may have.
	MaxPlanSteps = 1000
	// MaxStepRetries is the most retries (Step.MaxRetries) a step may ask
	// for after its first try.
	MaxStepRetries = 10
	// MaxRetryDelay is the longest wait between two tries of a step.
	MaxRetryDelay = Duration(time.Hour)
	// MaxAgentIterations is the most LLM turns an agent step may take
	// (AgentConfig.MaxIterations).
	MaxAgentIterations = 50
	// MaxStepEstimate is the longest duration a step may be estimated to
	// take.
	MaxStepEstimate = Duration(30 * 24 * time.Hour)
	// MaxIDBytes bounds a step id and the ids a step names (dependencies,
	// fallback, tools).
	MaxIDBytes = 64
	// MaxTitleBytes bounds a plan's and a step's title.
	MaxTitleBytes = 1 << 10
	// MaxStepTextBytes bounds each long text of a step or plan: the
	// description, an llm or agent prompt, a system prompt.
	MaxStepTextBytes = 16 << 10
	// MaxToolParamsBytes bounds a tool step's params, encoded as JSON.
	MaxToolParamsBytes = 16 << 10
	// MaxStepTools bounds the tools an agent step offers and the tools a
	// step requires.
	MaxStepTools = 32
	// MaxModelBytes bounds the model name an llm step asks for.
	MaxModelBytes = 256
	// MaxLLMTokens bounds an llm step's maxTokens.
	MaxLLMTokens = 1 << 20
	// MaxTemperature bounds an llm step's temperature (0 to 2, as
	// OpenAI-compatible APIs accept).
	MaxTemperature = 2.0
	// MaxConditionBytes bounds a skip condition.
	MaxConditionBytes = 1 << 10
	// MaxConditionDepth bounds the nesting of a skip condition (negations
	// and parentheses), so that parsing it cannot recurse deeply.
	MaxConditionDepth = 32
)

// Limits lowers the hard bounds for one run and names the tools it has.
// The zero value applies the hard bounds alone and accepts any tool name.
type Limits struct {
	// MaxSteps is the most steps the plan may have; zero or more than
	// MaxPlanSteps means MaxPlanSteps.
	MaxSteps int `json:"maxSteps,omitempty"`
	// WarnSteps is the length above which Validate warns; zero means
	// DefaultWarnSteps.
	WarnSteps int `json:"warnSteps,omitempty"`
	// MaxIterations is the most turns an agent step may ask for; zero or
	// more than MaxAgentIterations means MaxAgentIterations.
	MaxIterations int `json:"maxIterations,omitempty"`
	// Tools lists the tool names tool steps and agent steps may name
	// (e.g. BuiltinTools()); empty accepts any name.
	Tools []string `json:"tools,omitempty"`
}

// maxSteps is the effective step bound of l.
func (l Limits) maxSteps() int {
	if l.MaxSteps <= 0 || l.MaxSteps > MaxPlanSteps {
		return MaxPlanSteps
	}
	return l.MaxSteps
}

// maxIterations is the effective agent iteration bound of l.
func (l Limits) maxIterations() int {
	if l.MaxIterations <= 0 || l.MaxIterations > MaxAgentIterations {
		return MaxAgentIterations
	}
	return l.MaxIterations
}
