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
	"github.com/planmode/planmode/internal/devserver"
	"github.com/planmode/planmode/signals"
)

// composeFile is the part of a rendered compose file the tests read.
type composeFile struct {
	Services map[string]composeService `yaml:"services"`
	Secrets  map[string]struct {
		File string `yaml:"file"`
	} `yaml:"secrets"`
	Networks map[string]struct {
		Internal bool `yaml:"internal"`
	} `yaml:"networks"`
}

type composeService struct {
	Image string `yaml:"image"`
	Build struct {
		Context string `yaml:"context"`
		Target  string `yaml:"target"`
	} `yaml:"build"`
	Environment map[string]string `yaml:"environment"`
	Entrypoint  []string          `yaml:"entrypoint"`
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
	Restart  string          `yaml:"restart"`
	Profiles []string        `yaml:"profiles"`
	Ports    []composePort   `yaml:"ports"`
	Secrets  []composeSecret `yaml:"secrets"`
	// SecurityOpt loosens the container's profiles for the command sandbox.
	SecurityOpt []string        `yaml:"security_opt"`
	Volumes     []composeVolume `yaml:"volumes"`
	// Networks are the networks the service joins (their settings unread).
	Networks map[string]any `yaml:"networks"`
}

// composePort is a published port, from docker-compose 1.29's short form
// ("127.0.0.1:8080:8080/tcp") or `docker compose`'s long one.
type composePort struct {
	HostIP, Published, Target string
}

func (p *composePort) UnmarshalYAML(n *yaml.Node) error {
	if n.Kind == yaml.ScalarNode {
		spec, _, _ := strings.Cut(n.Value, "/")
		parts := strings.Split(spec, ":")
		switch len(parts) {
		case 3:
			p.HostIP, p.Published, p.Target = parts[0], parts[1], parts[2]
		case 2:
			p.Published, p.Target = parts[0], parts[1]
		default:
			p.Target = parts[0]
		}
		return nil
	}
	var long struct {
		HostIP    string `yaml:"host_ip"`
		Published any    `yaml:"published"`
		Target    any    `yaml:"target"`
	}
	if err := n.Decode(&long); err != nil {
		return err
	}
	p.HostIP, p.Published, p.Target = long.HostIP, fmt.Sprint(long.Published), fmt.Sprint(long.Target)
	return nil
}

// composeSecret is a service's use of a secret, short or long form.
type composeSecret struct {
	Source string `yaml:"source"`
}

func (s *composeSecret) UnmarshalYAML(n *yaml.Node) error {
	if n.Kind == yaml.ScalarNode {
		s.Source = n.Value
		return nil
	}
	type plain composeSecret // no UnmarshalYAML: decodes the long form
	return n.Decode((*plain)(s))
}

// composeVolume is a service's mount, short ("src:dst:ro") or long form.
type composeVolume struct {
	Source string `yaml:"source"`
	Target string `yaml:"target"`
}

func (v *composeVolume) UnmarshalYAML(n *yaml.Node) error {
	if n.Kind == yaml.ScalarNode {
		parts := strings.Split(n.Value, ":")
		v.Source, v.Target = parts[0], parts[len(parts)-1]
		if len(parts) > 2 {
			v.Target = parts[1]
		}
		return nil
	}
	type plain composeVolume // no UnmarshalYAML: decodes the long form
	return n.Decode((*plain)(v))
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

// testPassword is the database password the tests' env file holds.
const testPassword = "pw-from-the-env-file-7f3a"

// stackEnv is the least docker-compose.yml needs: what .env holds.
var stackEnv = []string{"POSTGRES_PASSWORD=" + testPassword}

// hostedEnv is the least the hosted compose file needs.
var hostedEnv = []string{"PLANMODE_TEMPORAL_ADDRESS=my-ns.a1b2c.tmprl.cloud:7233", "PLANMODE_TEMPORAL_NAMESPACE=my-ns.a1b2c"}

// renderCompose runs docker-compose with args (a command and its flags,
// global flags first) on the compose file file of the repository. The
// variables come from env only, written to an env file of the test's: a
// developer's .env beside the compose file, which docker-compose would
// otherwise read, and their environment play no part. It returns the
// output and docker-compose's error with its stderr.
func renderCompose(t *testing.T, file string, env []string, args ...string) ([]byte, error) {
	t.Helper()
	bin := dockerCompose(t)
	root, err := devserver.RepoRoot()
	require.NoError(t, err)
	envFile := filepath.Join(t.TempDir(), "test.env")
	require.NoError(t, os.WriteFile(envFile, []byte(strings.Join(env, "\n")+"\n"), 0o600))
	cmd := exec.Command(bin, append([]string{"--env-file", envFile, "-f", filepath.Join(root, file)}, args...)...)
	cmd.Dir = t.TempDir()
	cmd.Env = []string{"PATH=" + os.Getenv("PATH")}
	if home := os.Getenv("HOME"); home != "" {
		cmd.Env = append(cmd.Env, "HOME="+home)
	}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return out, fmt.Errorf("docker-compose %s: %w: %s", strings.Join(args, " "), err, stderr.String())
	}
	return out, nil
}

// loadCompose renders file with env and decodes it.
func loadCompose(t *testing.T, file string, env ...string) composeFile {
	t.Helper()
	out, err := renderCompose(t, file, env, "config")
	require.NoError(t, err)
	var f composeFile
	require.NoError(t, yaml.Unmarshal(out, &f))
	return f
}

func TestComposeFilesAreValid(t *testing.T) {
	tests := []struct {
		file string
		env  []string
		args []string
	}{
		{stackFile, stackEnv, []string{"config", "-q"}},
		{stackFile, stackEnv, []string{"--profile", "metrics", "config", "-q"}},
		{hostedFile, hostedEnv, []string{"config", "-q"}},
		{hostedFile, hostedEnv, []string{"--profile", "codec", "config", "-q"}},
	}
	for _, tt := range tests {
		t.Run(tt.file+" "+strings.Join(tt.args, " "), func(t *testing.T) {
			out, err := renderCompose(t, tt.file, tt.env, tt.args...)
			require.NoError(t, err)
			assert.Empty(t, strings.TrimSpace(string(out)), "config -q prints nothing for a valid file")
		})
	}
}

func TestComposeStack(t *testing.T) {
	f := loadCompose(t, stackFile, stackEnv...)
	for _, name := range []string{"postgresql", "temporal-schema", "temporal", "temporal-ui", "temporal-admin-tools", "codec-server",
		"seaweedfs", "store-bucket", "worker"} {
		require.Contains(t, f.Services, name)
	}

	pg := f.Services["postgresql"]
	require.NotNil(t, pg.Healthcheck)
	assert.Contains(t, strings.Join(pg.Healthcheck.Test, " "), "pg_isready")
	assert.Empty(t, pg.Ports, "the database is never published")

	schema := f.Services["temporal-schema"]
	assert.Equal(t, "service_healthy", schema.DependsOn["postgresql"].Condition)
	script := strings.Join(schema.Command, "\n")
	for _, want := range []string{"temporal=temporal", "temporal_visibility=visibility", "setup-schema -v 0.0", "update-schema -d"} {
		assert.Contains(t, script, want, "sets up both databases, idempotently")
	}

	tp := f.Services["temporal"]
	assert.True(t, strings.HasPrefix(tp.Image, "temporalio/server:"), "auto-setup is deprecated: %s", tp.Image)
	assert.Equal(t, "postgres12", tp.Environment["DB"])
	assert.Equal(t, "postgresql", tp.Environment["POSTGRES_SEEDS"])
	require.NotNil(t, tp.Healthcheck)
	assert.Equal(t, "service_completed_successfully", tp.DependsOn["temporal-schema"].Condition)

	ui := f.Services["temporal-ui"]
	assert.Equal(t, "temporal:7233", ui.Environment["TEMPORAL_ADDRESS"])

	w := f.Services["worker"]
	assert.Equal(t, 2, w.Deploy.Replicas)
	assert.Equal(t, "slim", w.Build.Target, "the worker is built from the Dockerfile's slim image")
	assert.Equal(t, "service_healthy", w.DependsOn["temporal"].Condition)
	assert.Equal(t, "service_completed_successfully", w.DependsOn["temporal-admin-tools"].Condition)
	assert.Equal(t, "temporal:7233", w.Environment[config.EnvName(config.KeyAddress)])
	assert.Empty(t, w.Environment[config.EnvName(config.KeyLLMBaseURL)], "offline by default")
	assert.NotContains(t, w.Environment, config.EnvName(config.KeyLLMAPIKey), "the key comes from a file")
}

func TestComposeHostedWorkers(t *testing.T) {
	f := loadCompose(t, hostedFile, hostedEnv...)
	require.Equal(t, []string{"codec-server", "worker"}, serviceNames(f), "workers (and a codec server): Temporal is hosted")
	assert.Equal(t, []string{"codec"}, f.Services["codec-server"].Profiles, "the codec server only on request")
	w := f.Services["worker"]
	assert.Equal(t, 2, w.Deploy.Replicas)
	assert.Empty(t, w.Profiles)
	assert.Equal(t, "my-ns.a1b2c.tmprl.cloud:7233", w.Environment[config.EnvName(config.KeyAddress)])
	assert.Equal(t, "my-ns.a1b2c", w.Environment[config.EnvName(config.KeyNamespace)])
	assert.Equal(t, "/run/secrets/temporal_api_key", w.Environment[config.EnvName(keyTemporalAPIKeyFile)])
	assert.NotContains(t, w.Environment, config.EnvName(config.KeyTemporalAPIKey), "the key comes from a file")

	_, err := renderCompose(t, hostedFile, nil, "config", "-q")
	assert.ErrorContains(t, err, "set PLANMODE_TEMPORAL_ADDRESS", "the address has no default")
}

// Configuration keys the compose files use that the worker and the codec
// server are gaining: each names a file holding what its key without
// "File" holds, or configures metrics or the codec. Replace them by the
// config package's constants once it has them.
const (
	keyLLMAPIKeyFile      = "llm.apiKeyFile"
	keyWebhookSecretFile  = "notify.webhookSecretFile"
	keyTemporalAPIKeyFile = "temporal.apiKeyFile"
	keyCodecKeyFile       = "codec.keyFile"
	keyCodecCORSOrigins   = "codec.corsOrigins"
	keyMetricsAddress     = "metrics.address"
	// The blob store that keeps plans' files, and its S3 key pair.
	keyWorkspaceStore          = "workspace.store"
	keyWorkspaceStoreAccessKey = "workspace.storeAccessKeyFile"
	keyWorkspaceStoreSecretKey = "workspace.storeSecretKeyFile"
)

func TestComposeWorkerEnvironmentNamesConfigKeys(t *testing.T) {
	known := map[string]bool{}
	for _, k := range []string{config.KeyAddress, config.KeyNamespace, config.KeyTaskQueue,
		config.KeyTLSCertFile, config.KeyTLSKeyFile, config.KeyTLSCAFile, config.KeyTLSServerName,
		config.KeyLLMBaseURL, config.KeyLLMModel, config.KeyLLMOffline,
		config.KeyWorkspaceRoot, config.KeyAllowCommands, config.KeyWebhookURL,
		config.KeyOutputsDir, config.KeyLogLevel, config.KeyLogFormat,
		config.KeyVersioning, config.KeyDeploymentName, config.KeyBuildID, config.KeyPromote,
		keyLLMAPIKeyFile, keyWebhookSecretFile, keyTemporalAPIKeyFile, keyCodecKeyFile, keyCodecCORSOrigins, keyMetricsAddress,
		keyWorkspaceStore, keyWorkspaceStoreAccessKey, keyWorkspaceStoreSecretKey} {
		known[config.EnvName(k)] = true
	}
	for _, f := range []composeFile{loadCompose(t, stackFile, stackEnv...), loadCompose(t, hostedFile, hostedEnv...)} {
		for _, svc := range []string{"worker", "codec-server"} {
			for name := range f.Services[svc].Environment {
				assert.True(t, known[name], "%s of %s is not a configuration key's variable", name, svc)
			}
		}
	}
}

func TestComposeRegistersTheSearchAttributes(t *testing.T) {
	admin := loadCompose(t, stackFile, stackEnv...).Services["temporal-admin-tools"]
	assert.Equal(t, "service_healthy", admin.DependsOn["temporal"].Condition)
	assert.Equal(t, "on-failure", admin.Restart, "a one-shot job, tried again until it succeeds")
	script := strings.Join(admin.Command, "\n")
	assert.Contains(t, script, "temporal operator namespace create", "the server image creates no namespace")
	assert.Contains(t, script, "temporal operator search-attribute create")
	for _, k := range []temporal.SearchAttributeKey{signals.PhaseAttr, signals.AwaitingAttr, signals.ProgressAttr} {
		assert.Contains(t, script, k.GetName()+"="+k.GetValueType().String(), "registers %s", k.GetName())
	}
}

func TestDockerfile(t *testing.T) {
	root, err := devserver.RepoRoot()
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
