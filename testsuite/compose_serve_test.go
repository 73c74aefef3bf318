package testsuite

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/planmode/planmode/internal/config"
	"github.com/planmode/planmode/internal/devserver"
	"github.com/planmode/planmode/serve"
)

// TestComposeServe checks the stack's planmode serve: the shared image,
// loopback publishing, tokens and the codec key from secret files, a
// health check on /healthz, and only keys the configuration knows.
func TestComposeServe(t *testing.T) {
	f := loadCompose(t, stackFile, stackEnv...)
	s, ok := f.Services["serve"]
	require.True(t, ok, "the stack runs planmode serve")
	assert.Empty(t, s.Profiles, "followers need it whenever plans run")
	assert.Equal(t, f.Services["worker"].Image, s.Image, "the workers' image")
	assert.Equal(t, []string{"planmode"}, s.Entrypoint)
	assert.Equal(t, []string{"serve", "--listen", ":8088"}, s.Command)
	require.Len(t, s.Ports, 1)
	assert.Equal(t, composePort{HostIP: "127.0.0.1", Published: "8088", Target: "8088"}, s.Ports[0])
	require.NotNil(t, s.Healthcheck)
	assert.Equal(t, []string{"CMD", "planmode", "healthcheck", "http://127.0.0.1:8088/healthz"}, s.Healthcheck.Test)

	assert.ElementsMatch(t, []string{"serve_tokens", "codec_key"}, secretSources(s))
	assert.Equal(t, "/run/secrets/serve_tokens", s.Environment[config.EnvName(config.KeyServeTokensFile)])
	assert.Equal(t, "/run/secrets/codec_key", s.Environment[config.EnvName(keyCodecKeyFile)], "plans' answers are encrypted")
	assert.Equal(t, f.Services["worker"].Environment[config.EnvName(config.KeyAddress)], s.Environment[config.EnvName(config.KeyAddress)])
	known := map[string]bool{}
	for _, k := range config.NewViper().AllKeys() {
		known[config.EnvName(k)] = true
	}
	for name := range s.Environment {
		assert.True(t, known[name], "%s of serve is not a configuration key's variable", name)
	}

	origins := loadCompose(t, stackFile, append(stackEnv, "PLANMODE_SERVE_ORIGINS=https://ops.example.com")...)
	assert.Equal(t, "https://ops.example.com", origins.Services["serve"].Environment[config.EnvName(config.KeyServeAllowedOrigins)])
}

// TestComposeInitSecretsWritesAServeToken: the token init-secrets.sh
// writes is one planmode serve reads.
func TestComposeInitSecretsWritesAServeToken(t *testing.T) {
	root, err := devserver.RepoRoot()
	require.NoError(t, err)
	dir := t.TempDir()
	cmd := exec.Command("sh", filepath.Join(root, "deploy/init-secrets.sh"))
	cmd.Env = append(os.Environ(), "PLANMODE_ENV_FILE="+filepath.Join(dir, "stack.env"), "PLANMODE_SECRETS_DIR="+filepath.Join(dir, "secrets"))
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "%s", out)
	toks, err := serve.ReadTokens(filepath.Join(dir, "secrets", "serve_tokens"))
	require.NoError(t, err)
	assert.Equal(t, 1, toks.Len())
}
