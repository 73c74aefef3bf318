package prompts

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// promptDir writes files (name → text) into a fresh folder.
func promptDir(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for name, text := range files {
		require.NoError(t, os.WriteFile(filepath.Join(dir, name), []byte(text), 0o600))
	}
	return dir
}

func TestLoadReplacesTemplatesByName(t *testing.T) {
	dir := promptDir(t, map[string]string{
		"plan_system.tmpl": "You plan for ACME. Make {{.Count}} options for: {{.Goal}}",
		"README.txt":       "not a template: ignored",
	})
	set, err := Load(dir)
	require.NoError(t, err)
	msgs, err := set.Plan(Custom{}, PlanData{Goal: "ship it", Count: 2})
	require.NoError(t, err)
	assert.Equal(t, PhaseLine+"plan\nYou plan for ACME. Make 2 options for: ship it", msgs[0].Content)
	assert.Contains(t, msgs[1].Content, "Goal: ship it", "the user template stays the embedded one")

	def, err := Plan(Custom{}, PlanData{Goal: "ship it", Count: 2})
	require.NoError(t, err)
	assert.Contains(t, def[0].Content, "software task planner", "the default set is untouched")
}

func TestLoadEmptyDirIsDefault(t *testing.T) {
	set, err := Load("")
	require.NoError(t, err)
	assert.Same(t, Default(), set)
	var none *Set
	msgs, err := none.Reflect(Custom{}, sampleReflect())
	require.NoError(t, err)
	assert.Contains(t, msgs[0].Content, PhaseLine+"reflect")
}

func TestLoadRefusesABadTemplateWithItsFile(t *testing.T) {
	tests := []struct {
		name, file, text, want string
	}{
		{"syntax", "reflect_user.tmpl", "{{if .Mode}}unclosed", "reflect_user.tmpl"},
		{"unknown field", "summarize_user.tmpl", "{{.NoSuchField}}", "NoSuchField"},
		{"unknown function", "agent_user.tmpl", "{{shout .Prompt}}", `function "shout" not defined`},
		{"unknown name", "planning.tmpl", "hi", "no embedded template is named planning.tmpl"},
		{"empty user message", "execute_user.tmpl", `{{""}}`, "renders empty"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := promptDir(t, map[string]string{tt.file: tt.text})
			_, err := Load(dir)
			require.Error(t, err)
			assert.Contains(t, err.Error(), tt.want)
			assert.True(t, strings.Contains(err.Error(), dir), "the error names the folder or file: %v", err)
		})
	}
	_, err := Load(filepath.Join(t.TempDir(), "missing"))
	assert.Error(t, err, "a folder that does not exist")
}

func TestEmbeddedTemplatesPassTheirOwnCheck(t *testing.T) {
	assert.NoError(t, Default().check())
	assert.Contains(t, TemplateNames(), "plan_system.tmpl")
	assert.Contains(t, TemplateNames(), "partials.tmpl")
}
