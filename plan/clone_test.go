package plan

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestCloneSharesNothing(t *testing.T) {
	temp := 0.3
	at := t0
	p := chain(2)
	p.Resources = []string{"r"}
	p.Risks = []Risk{{Description: "x"}}
	p.UpdateHistory = []Update{{StepID: "s1"}}
	p.Steps[0].Config.LLM.Temperature = &temp
	p.Steps[0].StartedAt = &at
	p.Steps[0].Result = &StepResult{Output: "o", FilesChanged: []FileChange{{Path: "a"}}}
	p.Steps[1].Config.Tool = &ToolConfig{Name: "t", Params: map[string]any{"args": []any{"a"}, "m": map[string]any{"k": "v"}, "l": []string{"x"}}}
	p.Steps[1].Config.Agent = &AgentConfig{Prompt: "p", Tools: []string{"read_file"}}
	want := p.Clone()
	q := p.Clone()
	require.Equal(t, want, q)

	*q.Steps[0].Config.LLM.Temperature = 0.9
	*q.Steps[0].StartedAt = t0.Add(1)
	q.Steps[0].Result.FilesChanged[0].Path = "b"
	q.Steps[0].Result.Output = "changed"
	q.Steps[1].DependsOn[0] = "zz"
	q.Steps[1].Config.Tool.Params["args"].([]any)[0] = "b"
	q.Steps[1].Config.Tool.Params["m"].(map[string]any)["k"] = "w"
	q.Steps[1].Config.Tool.Params["l"].([]string)[0] = "y"
	q.Steps[1].Config.Agent.Tools[0] = "write_file"
	q.Resources[0], q.Risks[0].Description, q.UpdateHistory[0].StepID = "R", "X", "S"
	assert.Equal(t, want, p, "original untouched")
}

func TestStepByID(t *testing.T) {
	p := chain(3)
	s := p.StepByID("s2")
	require.NotNil(t, s)
	s.Title = "via pointer"
	assert.Equal(t, "via pointer", p.Steps[1].Title, "pointer addresses the plan's step")
	assert.Nil(t, p.StepByID("nope"))
}
