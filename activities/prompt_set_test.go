package activities

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/planmode/planmode/plan"
	"github.com/planmode/planmode/prompts"
)

func TestActivitiesRenderTheirPromptSet(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "summarize_system.tmpl"),
		[]byte("Summarize for the ops team: {{.Goal}} ended {{.Status}}."), 0o600))
	set, err := prompts.Load(dir)
	require.NoError(t, err)
	a, model := newScripted(text("done"))
	a.Prompts = set
	p := plan.Plan{ID: "p", Steps: []plan.Step{{ID: "s1", Title: "x", Status: plan.StepCompleted}}}
	_, err = a.Summarize(context.Background(), SummarizeInput{Goal: "ship", Digest: ptr(p.Digest()), Status: "completed"})
	require.NoError(t, err)
	require.Equal(t, 1, model.calls())
	assert.Equal(t, prompts.PhaseLine+"summarize\nSummarize for the ops team: ship ended completed.",
		model.requests[0].Messages[0].Content)
}
