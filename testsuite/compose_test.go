package testsuite

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/temporal"
	"gopkg.in/yaml.v3"

	"github.com/planmode/planmode/internal/config"
	"github.com/planmode/planmode/signals"
)

// composeFile is the part of a rendered compose file the tests read.
type composeFile struct {
	Services map[string]composeService `yaml:"services"`
}

type composeService struct {
	Image string `yaml:"image"`
	Build struct {
		Context string `yaml:"context"`
		Target  string `yaml:"target"`
	} `yaml:"build"`
	Environment map[string]string `yaml:"environment"`
	Command     []string          `yaml:"command"`
	Healthcheck *struct {
		Test []string `yaml:"test"`
	} `yaml:"healthcheck"`
	DependsOn map[string]struct {
		Condition string `yaml:"condition"`
	} `yaml:"depends_on"`
	Deploy struct {
		Replicas int `yaml:"replicas"`
	} `yaml:"deploy"`
	Restart string `yaml:"restart"`
}

// dockerCompose returns docker-compose's path. Outside CI a missing
// docker-compose skips the test; in CI (where the script installs it) it
// fails it.
func dockerCompose(t *testing.T) string {
	t.Helper()
	bin, err := exec.LookPath("docker-compose")
	if err == nil {
		return bin
	}
	if os.Getenv("CI") == "" {
		t.Skip("docker-compose is not installed (apt-get install -y docker-compose); CI runs this test")
	}
	t.Fatalf("docker-compose is required when CI is set: %v", err)
	return ""
}

// Compose files, relative to the repository.
const (
	stackFile  = "docker-compose.yml"
	hostedFile = "deploy/docker-compose.hosted.yml"
)

// renderCompose runs `docker-compose config` with args on the compose file
// file of the repository, in an environment stripped of the variables the
// file reads and then given env, so that the defaults are what is rendered.
// It returns the output and docker-compose's error with its stderr.
func renderCompose(t *testing.T, file string, env []string, args ...string) ([]byte, error) {
	t.Helper()
	bin := dockerCompose(t)
	root, err := RepoRoot()
	require.NoError(t, err)
	cmd := exec.Command(bin, append([]string{"-f", filepath.Join(root, file), "config"}, args...)...)
	cmd.Dir = t.TempDir() // no .env file of the developer's
	for _, kv := range os.Environ() {
		name, _, _ := strings.Cut(kv, "=")
		if !strings.HasPrefix(name, "PLANMODE_") && !strings.HasPrefix(name, "POSTGRES") && !strings.HasPrefix(name, "TEMPORAL_") {
			cmd.Env = append(cmd.Env, kv)
		}
	}
	cmd.Env = append(cmd.Env, env...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return out, fmt.Errorf("docker-compose config: %w: %s", err, stderr.String())
	}
	return out, nil
}

// loadCompose renders file with env and decodes it.
func loadCompose(t *testing.T, file string, env ...string) composeFile {
	t.Helper()
	out, err := renderCompose(t, file, env)
	require.NoError(t, err)
	var f composeFile
	require.NoError(t, yaml.Unmarshal(out, &f))
	return f
}

// hostedEnv is the least the hosted compose file needs.
var hostedEnv = []string{"PLANMODE_TEMPORAL_ADDRESS=my-ns.a1b2c.tmprl.cloud:7233", "PLANMODE_TEMPORAL_NAMESPACE=my-ns.a1b2c"}

func TestComposeFilesAreValid(t *testing.T) {
	tests := []struct {
		file string
		env  []string
	}{
		{stackFile, nil},
		{hostedFile, hostedEnv},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			out, err := renderCompose(t, tt.file, tt.env, "-q")
			require.NoError(t, err)
			assert.Empty(t, strings.TrimSpace(string(out)), "config -q prints nothing for a valid file")
		})
	}
}

func TestComposeStack(t *testing.T) {
	f := loadCompose(t, stackFile)
	for _, name := range []string{"postgresql", "temporal", "temporal-ui", "temporal-admin-tools", "worker"} {
		require.Contains(t, f.Services, name)
	}

	pg := f.Services["postgresql"]
	require.NotNil(t, pg.Healthcheck)
	assert.Contains(t, strings.Join(pg.Healthcheck.Test, " "), "pg_isready")

	tp := f.Services["temporal"]
	assert.True(t, strings.HasPrefix(tp.Image, "temporalio/auto-setup:"), tp.Image)
	assert.Equal(t, "postgres12", tp.Environment["DB"])
	assert.Equal(t, "postgresql", tp.Environment["POSTGRES_SEEDS"])
	require.NotNil(t, tp.Healthcheck)
	assert.Contains(t, strings.Join(tp.Healthcheck.Test, " "), "cluster health")
	assert.Equal(t, "service_healthy", tp.DependsOn["postgresql"].Condition)

	ui := f.Services["temporal-ui"]
	assert.Equal(t, "temporal:7233", ui.Environment["TEMPORAL_ADDRESS"])

	w := f.Services["worker"]
	assert.Equal(t, 2, w.Deploy.Replicas)
	assert.Equal(t, "slim", w.Build.Target, "the worker is built from the Dockerfile's slim image")
	assert.Equal(t, "service_healthy", w.DependsOn["temporal"].Condition)
	assert.Equal(t, "service_completed_successfully", w.DependsOn["temporal-admin-tools"].Condition)
	assert.Equal(t, "temporal:7233", w.Environment[config.EnvName(config.KeyAddress)])
	assert.Empty(t, w.Environment[config.EnvName(config.KeyLLMBaseURL)], "offline by default")
	assert.Empty(t, w.Environment[config.EnvName(config.KeyLLMAPIKey)], "offline by default")
}

func TestComposeHostedWorkers(t *testing.T) {
	f := loadCompose(t, hostedFile, append(hostedEnv, "PLANMODE_TEMPORAL_APIKEY=key-1")...)
	require.Equal(t, []string{"worker"}, serviceNames(f), "workers only: Temporal is hosted")
	w := f.Services["worker"]
	assert.Equal(t, 2, w.Deploy.Replicas)
	assert.Equal(t, "my-ns.a1b2c.tmprl.cloud:7233", w.Environment[config.EnvName(config.KeyAddress)])
	assert.Equal(t, "my-ns.a1b2c", w.Environment[config.EnvName(config.KeyNamespace)])
	assert.Equal(t, "key-1", w.Environment[config.EnvName(config.KeyTemporalAPIKey)])

	_, err := renderCompose(t, hostedFile, nil, "-q")
	assert.ErrorContains(t, err, "set PLANMODE_TEMPORAL_ADDRESS", "the address has no default")
}

func TestComposeWorkerEnvironmentNamesConfigKeys(t *testing.T) {
	known := map[string]bool{}
	for _, k := range []string{config.KeyAddress, config.KeyNamespace, config.KeyTaskQueue, config.KeyTemporalAPIKey,
		config.KeyTLSCertFile, config.KeyTLSKeyFile, config.KeyTLSCAFile, config.KeyTLSServerName,
		config.KeyLLMBaseURL, config.KeyLLMAPIKey, config.KeyLLMModel, config.KeyLLMOffline,
		config.KeyWorkspaceRoot, config.KeyAllowCommands, config.KeyWebhookURL, config.KeyWebhookSecret,
		config.KeyOutputsDir, config.KeyLogLevel, config.KeyLogFormat} {
		known[config.EnvName(k)] = true
	}
	for _, f := range []composeFile{loadCompose(t, stackFile), loadCompose(t, hostedFile, hostedEnv...)} {
		for name := range f.Services["worker"].Environment {
			assert.True(t, known[name], "%s is not a configuration key's variable", name)
		}
	}
}

func TestComposeRegistersTheSearchAttributes(t *testing.T) {
	admin := loadCompose(t, stackFile).Services["temporal-admin-tools"]
	assert.Equal(t, "service_healthy", admin.DependsOn["temporal"].Condition)
	assert.Equal(t, "on-failure", admin.Restart, "a one-shot job, tried again until it succeeds")
	script := strings.Join(admin.Command, "\n")
	assert.Contains(t, script, "temporal operator search-attribute create")
	for _, k := range []temporal.SearchAttributeKey{signals.PhaseAttr, signals.AwaitingAttr, signals.ProgressAttr} {
		assert.Contains(t, script, k.GetName()+"="+k.GetValueType().String(), "registers %s", k.GetName())
	}
}

func TestDockerfile(t *testing.T) {
	root, err := RepoRoot()
	require.NoError(t, err)
	b, err := os.ReadFile(filepath.Join(root, "Dockerfile"))
	require.NoError(t, err)
	df := string(b)
	for _, want := range []string{
		"ARG GO_VERSION=1.26",
		"FROM golang:${GO_VERSION}",
		"-o /out/planmode-worker ./worker",
		"-o /out/planmode ./starter",
		"FROM debian:bookworm-slim AS slim",
		"FROM slim AS toolchain",
		"USER planmode",
		`ENTRYPOINT ["planmode-worker"]`,
	} {
		assert.Contains(t, df, want)
	}
	stages := strings.Split(df, "\nFROM ")
	assert.True(t, strings.HasPrefix(stages[len(stages)-1], "slim"), "the default target is the slim image")
}

// serviceNames returns the services of f, sorted.
func serviceNames(f composeFile) []string {
	out := make([]string, 0, len(f.Services))
	for k := range f.Services {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
