package config

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/planmode/planmode/internal/secretfile"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestSecretsFromFiles(t *testing.T) {
	dir := t.TempDir()
	write := func(name, content string) string {
		p := filepath.Join(dir, name)
		require.NoError(t, os.WriteFile(p, []byte(content), 0o600))
		return p
	}
	llmKey := write("llm", "sk-from-file\n")
	empty := write("empty", "  \n")
	secret := write("secret", "whsec")
	big := write("big", strings.Repeat("x", secretfile.MaxBytes+1))

	c, err := load(t, loadCase{env: map[string]string{
		EnvName(KeyLLMAPIKeyFile): llmKey, EnvName(KeySecretFile): secret, EnvName(KeyTemporalKeyFile): empty,
	}})
	require.NoError(t, err)
	assert.Equal(t, "sk-from-file", c.LLM.APIKey, "the key file's line, without its newline")
	assert.False(t, c.LLM.Offline, "a key from a file means a real provider")
	assert.Equal(t, "whsec", c.Notify.WebhookSecret)
	assert.Empty(t, c.Temporal.APIKey, "an empty file means no key")

	c, err = load(t, loadCase{env: map[string]string{EnvName(KeyLLMAPIKeyFile): empty}})
	require.NoError(t, err)
	assert.True(t, c.LLM.Offline, "an empty key file leaves the offline model")

	_, err = load(t, loadCase{env: map[string]string{EnvName(KeyLLMAPIKeyFile): llmKey, EnvName(KeyLLMAPIKey): "sk-env"}})
	require.ErrorContains(t, err, "llm.apiKey and llm.apiKeyFile are both set")

	_, err = load(t, loadCase{env: map[string]string{EnvName(KeySecretFile): filepath.Join(dir, "missing")}})
	require.ErrorContains(t, err, "notify.webhookSecretFile")

	_, err = load(t, loadCase{env: map[string]string{EnvName(KeyLLMAPIKeyFile): big}})
	require.ErrorContains(t, err, "larger than")
	require.NotContains(t, err.Error(), "xxxx", "an error never quotes the file")
}

func TestAllowedWebhookURLsFromTheEnvironment(t *testing.T) {
	c, err := load(t, loadCase{env: map[string]string{EnvName(KeyAllowedURLs): "https://hooks.example.com/,https://ci.example.com/plan"}})
	require.NoError(t, err)
	assert.Equal(t, []string{"https://hooks.example.com/", "https://ci.example.com/plan"}, c.Notify.AllowedURLs)
}
