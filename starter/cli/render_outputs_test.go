package cli

import (
	"bytes"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/planmode/planmode/plan"
	"github.com/planmode/planmode/signals"
)

func TestShowNamesTheFullOutputOfATruncatedStep(t *testing.T) {
	const ref = "/var/cache/planmode/outputs/plan-7/s1-tool-5-0f3a9c1e.txt"
	p := &plan.Plan{ID: "plan-7", Title: "Build", Steps: []plan.Step{
		{ID: "s1", Number: 1, Title: "Run the tests", Action: plan.ActionTool, Status: plan.StepCompleted,
			Result: &plan.StepResult{Success: true, Output: "ok\n… [900 bytes omitted] …\nPASS", OutputTruncated: true,
				OutputRef: ref}},
		{ID: "s2", Number: 2, Title: "Explain", Action: plan.ActionLLM, Status: plan.StepCompleted,
			Result: &plan.StepResult{Success: true, Output: "short"}},
	}}
	var buf bytes.Buffer
	require.NoError(t, renderState(&buf, planState{WorkflowID: "plan-7", Plan: signals.PlanView{Plan: p}}))
	var rows []string
	for _, line := range strings.Split(buf.String(), "\n") {
		if strings.HasPrefix(line, "#  ") || strings.Contains(line, "s1") || strings.Contains(line, "s2") ||
			strings.Contains(line, "full output") {
			rows = append(rows, line)
		}
	}
	require.Len(t, rows, 4, buf.String())
	assert.Contains(t, rows[1], "s1")
	assert.Equal(t, "full output: "+ref, strings.TrimSpace(rows[2]), "the line under the truncated step")
	assert.Equal(t, strings.Index(rows[0], "NOTE"), strings.Index(rows[2], "full output:"), "in the note column")
	assert.Contains(t, rows[3], "s2")
	assert.Equal(t, 1, strings.Count(buf.String(), "full output:"), "a step with its whole output has no such line")
}
