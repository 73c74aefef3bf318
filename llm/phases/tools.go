package phases

import (
	"github.com/planmode/planmode/llm"
	"github.com/planmode/planmode/tools"
)

// ToolSpecs hands out the specs of the tools offered to agent turns and
// planning prompts, by name. Nil or empty names ask for every tool;
// unknown names are left out.
type ToolSpecs interface {
	Specs(names []string) []llm.ToolSpec
}

// ReadOnlyToolSpecs is a ToolSpecs that can also hand out the specs of
// its read-only tools, the only ones planning and reflection are offered.
// The adapter of ToolSpecsOf implements it.
type ReadOnlyToolSpecs interface {
	ToolSpecs
	ReadOnlySpecs() []llm.ToolSpec
}

// ToolSpecsOf adapts a tool registry to ToolSpecs for the model.
func ToolSpecsOf(reg *tools.Registry) ReadOnlyToolSpecs { return registrySpecs{reg} }

// registrySpecs hands out a registry's specs as ToolSpec values.
type registrySpecs struct{ reg *tools.Registry }

// Specs returns the named tools' specs; nil or empty names return all.
func (r registrySpecs) Specs(names []string) []llm.ToolSpec { return toToolSpecs(r.reg.Specs(names)) }

// ReadOnlySpecs returns the specs of the tools planning and reflection may
// use.
func (r registrySpecs) ReadOnlySpecs() []llm.ToolSpec { return toToolSpecs(r.reg.ReadOnlySpecs()) }

// toToolSpecs converts a registry's specs to the model's.
func toToolSpecs(specs []tools.Spec) []llm.ToolSpec {
	out := make([]llm.ToolSpec, len(specs))
	for i, s := range specs {
		out[i] = llm.ToolSpec{Name: s.Name, Description: s.Description, Parameters: s.Parameters}
	}
	return out
}
