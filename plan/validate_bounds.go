package plan

import (
	"encoding/json"
	"math"
	"slices"
	"strings"
)

// checkPlanBounds checks the plan's own texts against limits.go.
func (v *validator) checkPlanBounds(p *Plan) {
	v.size("", "title", p.Title, MaxTitleBytes)
	v.size("", "description", p.Description, MaxStepTextBytes)
}

// checkStepBounds checks every size, count and number of s against
// limits.go, the iteration bound lowered by lim. Retries are checked with
// the step's identity, the skip condition's size by its parser.
func (v *validator) checkStepBounds(s *Step, lim Limits) {
	id := s.ID
	if len(id) > MaxIDBytes {
		v.err(CodeTooLarge, TruncateBytes(id, MaxIDBytes), "id", "id is %d bytes: at most %d", len(id), MaxIDBytes)
	}
	v.size(id, "title", s.Title, MaxTitleBytes)
	v.size(id, "description", s.Description, MaxStepTextBytes)
	v.ids(id, "dependsOn", s.DependsOn, MaxPlanSteps)
	v.ids(id, "requiredTools", s.RequiredTools, MaxStepTools)
	v.size(id, "fallbackStepId", s.FallbackStepID, MaxIDBytes)
	v.between(id, "estimated", s.Estimated, MaxStepEstimate)
	if c := s.Config.LLM; c != nil {
		v.size(id, "config.llm.prompt", c.Prompt, MaxStepTextBytes)
		v.size(id, "config.llm.systemPrompt", c.SystemPrompt, MaxStepTextBytes)
		v.size(id, "config.llm.model", c.Model, MaxModelBytes)
		v.upTo(id, "config.llm.maxTokens", c.MaxTokens, MaxLLMTokens)
		if t := c.Temperature; t != nil && (math.IsNaN(*t) || *t < 0 || *t > MaxTemperature) {
			v.err(CodeOutOfRange, id, "config.llm.temperature", "config.llm.temperature %v: want 0 to %v", *t, MaxTemperature)
		}
	}
	if c := s.Config.Tool; c != nil {
		v.size(id, "config.tool.name", c.Name, MaxIDBytes)
		v.params(id, c.Params)
	}
	if c := s.Config.Agent; c != nil {
		v.size(id, "config.agent.prompt", c.Prompt, MaxStepTextBytes)
		v.ids(id, "config.agent.tools", c.Tools, MaxStepTools)
		v.upTo(id, "config.agent.maxIterations", c.MaxIterations, lim.maxIterations())
	}
}

// checkTools checks that a tool step calls, and an agent step offers, only
// tools in known; an empty known accepts any name. Missing configs are
// reported by checkAction.
func (v *validator) checkTools(s *Step, known []string) {
	if len(known) == 0 {
		return
	}
	var names []string
	field := "config.tool.name"
	switch {
	case s.Action == ActionTool && s.Config.Tool != nil && strings.TrimSpace(s.Config.Tool.Name) != "":
		names = []string{s.Config.Tool.Name}
	case s.Action == ActionAgent && s.Config.Agent != nil:
		names, field = s.Config.Agent.Tools, "config.agent.tools"
	}
	for _, n := range names {
		if !slices.Contains(known, n) {
			v.err(CodeUnknownTool, s.ID, field, "%s %q is not a known tool: want one of %s",
				field, TruncateBytes(n, MaxIDBytes), strings.Join(known, ", "))
		}
	}
}

// size reports a text longer than most bytes.
func (v *validator) size(stepID, field, text string, most int) {
	if len(text) > most {
		v.err(CodeTooLarge, stepID, field, "%s is %d bytes: at most %d", field, len(text), most)
	}
}

// ids reports a list of more than most names, or a name longer than
// MaxIDBytes.
func (v *validator) ids(stepID, field string, names []string, most int) {
	if len(names) > most {
		v.err(CodeTooLarge, stepID, field, "%s has %d entries: at most %d", field, len(names), most)
	}
	for _, n := range names {
		if len(n) > MaxIDBytes {
			v.err(CodeTooLarge, stepID, field, "%s holds a name of %d bytes: at most %d", field, len(n), MaxIDBytes)
			return
		}
	}
}

// upTo reports a count that is negative or above most.
func (v *validator) upTo(stepID, field string, n, most int) {
	switch {
	case n < 0:
		v.err(CodeOutOfRange, stepID, field, "%s %d must not be negative", field, n)
	case n > most:
		v.err(CodeOutOfRange, stepID, field, "%s %d: at most %d", field, n, most)
	}
}

// between reports a duration that is negative or above most.
func (v *validator) between(stepID, field string, d, most Duration) {
	switch {
	case d < 0:
		v.err(CodeOutOfRange, stepID, field, "%s %s must not be negative", field, d)
	case d > most:
		v.err(CodeOutOfRange, stepID, field, "%s %s: at most %s", field, d, most)
	}
}

// params reports tool params larger than MaxToolParamsBytes as JSON, or
// that JSON cannot carry. Encoding sorts map keys, so the size is the same
// in a workflow and on replay.
func (v *validator) params(stepID string, params map[string]any) {
	if len(params) == 0 {
		return
	}
	b, err := json.Marshal(params) //workflowcheck:ignore
	switch {
	case err != nil:
		v.err(CodeOutOfRange, stepID, "config.tool.params", "config.tool.params cannot be encoded as JSON: %v", err)
	case len(b) > MaxToolParamsBytes:
		v.err(CodeTooLarge, stepID, "config.tool.params", "config.tool.params are %d bytes of JSON: at most %d", len(b), MaxToolParamsBytes)
	}
}
