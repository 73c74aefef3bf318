package testsuite

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"gopkg.in/yaml.v3"

	"github.com/planmode/planmode/internal/config"
	"github.com/planmode/planmode/internal/devserver"
	"github.com/planmode/planmode/metrics"
)

// Tests of what makes the compose stacks fit to expose: loopback ports,
// credentials from the env file and secret files, health checks, pinned
// images, the codec server and the metrics profile.

// readRepoFile returns a file of the repository.
func readRepoFile(t *testing.T, name string) []byte {
	t.Helper()
	root, err := devserver.RepoRoot()
	require.NoError(t, err)
	b, err := os.ReadFile(filepath.Join(root, name))
	require.NoError(t, err)
	return b
}

func TestComposePortsBindToLoopback(t *testing.T) {
	cases := []struct {
		file string
		env  []string
	}{{stackFile, stackEnv}, {hostedFile, hostedEnv}}
	for _, c := range cases {
		t.Run(c.file, func(t *testing.T) {
			published := 0
			for name, svc := range loadCompose(t, c.file, c.env...).Services {
				for _, p := range svc.Ports {
					assert.Equal(t, "127.0.0.1", p.HostIP, "%s publishes %s on every interface", name, p.Published)
					published++
				}
			}
			require.NotZero(t, published)
			// Every port follows PLANMODE_BIND, so exposing is a choice.
			for name, svc := range loadCompose(t, c.file, append(c.env, "PLANMODE_BIND=0.0.0.0")...).Services {
				for _, p := range svc.Ports {
					assert.Equal(t, "0.0.0.0", p.HostIP, "%s ignores PLANMODE_BIND", name)
				}
			}
		})
	}
}

func TestComposeRefusesToStartWithoutTheEnvFile(t *testing.T) {
	_, err := renderCompose(t, stackFile, nil, "config", "-q")
	require.Error(t, err)
	for _, want := range []string{"POSTGRES_PASSWORD is not set", "deploy/init-secrets.sh", "deploy/env.example"} {
		assert.ErrorContains(t, err, want, "the error says what to do")
	}

	// The example as checked in is refused too: its password is empty.
	example := string(readRepoFile(t, "deploy/env.example"))
	_, err = renderCompose(t, stackFile, strings.Split(example, "\n"), "config", "-q")
	assert.ErrorContains(t, err, "POSTGRES_PASSWORD is not set")

	// Every variable a compose file requires is explained in the example.
	required := regexp.MustCompile(`\$\{([A-Z0-9_]+):\?`)
	for _, file := range []string{stackFile, hostedFile} {
		for _, m := range required.FindAllStringSubmatch(string(readRepoFile(t, file)), -1) {
			assert.Regexp(t, `(?m)^#?`+m[1]+`=`, example, "%s requires %s", file, m[1])
		}
	}
}

func TestComposeHoldsNoPassword(t *testing.T) {
	secretName := regexp.MustCompile(`(?i)(password|pwd|secret|apikey|api_key|token)`)
	withDefault := regexp.MustCompile(`\$\{([A-Za-z0-9_]+):?-`)
	for _, file := range []string{stackFile, hostedFile} {
		for _, m := range withDefault.FindAllStringSubmatch(string(readRepoFile(t, file)), -1) {
			if !strings.HasSuffix(m[1], "_DIR") { // where the secret files are is no secret
				assert.NotRegexp(t, secretName, m[1], "%s gives %s a default", file, m[1])
			}
		}
	}

	f := loadCompose(t, stackFile, stackEnv...)
	passwords := 0
	for name, svc := range f.Services {
		for k, v := range svc.Environment {
			if !secretName.MatchString(k) {
				continue
			}
			switch {
			case strings.HasSuffix(k, "FILE"):
				assert.True(t, strings.HasPrefix(v, "/run/secrets/"), "%s of %s: %s", k, name, v)
			case strings.Contains(k, "PASSWORD") || strings.Contains(k, "PWD"):
				assert.Equal(t, testPassword, v, "%s of %s comes from the env file", k, name)
				passwords++
			default:
				t.Errorf("%s of %s holds a secret in the environment", k, name)
			}
		}
	}
	assert.Equal(t, 3, passwords, "PostgreSQL, the schema job and the server read the one password")
}

func TestComposeSecretsAreFiles(t *testing.T) {
	dir := t.TempDir()
	cases := []struct {
		file    string
		env     []string
		workers []string
	}{
		{stackFile, stackEnv, []string{"llm_api_key", "webhook_secret", "codec_key", "store_access_key", "store_secret_key"}},
		{hostedFile, hostedEnv, []string{"temporal_api_key", "llm_api_key", "webhook_secret", "codec_key", "store_access_key", "store_secret_key"}},
	}
	fileKeys := map[string]string{"llm_api_key": keyLLMAPIKeyFile, "webhook_secret": keyWebhookSecretFile,
		"codec_key": keyCodecKeyFile, "temporal_api_key": keyTemporalAPIKeyFile,
		"store_access_key": keyWorkspaceStoreAccessKey, "store_secret_key": keyWorkspaceStoreSecretKey}
	for _, c := range cases {
		t.Run(c.file, func(t *testing.T) {
			f := loadCompose(t, c.file, append(c.env, "PLANMODE_SECRETS_DIR="+dir)...)
			require.NotEmpty(t, f.Secrets)
			for name, s := range f.Secrets {
				assert.Equal(t, filepath.Join(dir, name), s.File, "secret %s is a file in PLANMODE_SECRETS_DIR", name)
			}
			w := f.Services["worker"]
			assert.ElementsMatch(t, c.workers, secretSources(w))
			for _, name := range c.workers {
				assert.Equal(t, "/run/secrets/"+name, w.Environment[config.EnvName(fileKeys[name])])
			}
			codec := f.Services["codec-server"]
			assert.Equal(t, []string{"codec_key"}, secretSources(codec))
			assert.Equal(t, "/run/secrets/codec_key", codec.Environment[config.EnvName(keyCodecKeyFile)])
		})
	}
	grafana := loadCompose(t, stackFile, stackEnv...).Services["grafana"]
	assert.Equal(t, []string{"grafana_admin_password"}, secretSources(grafana))
	assert.Equal(t, "/run/secrets/grafana_admin_password", grafana.Environment["GF_SECURITY_ADMIN_PASSWORD__FILE"])
	assert.Equal(t, []string{"store_s3_config"}, secretSources(loadCompose(t, stackFile, stackEnv...).Services["seaweedfs"]))
}

// secretSources lists the secrets svc mounts.
func secretSources(svc composeService) []string {
	var out []string
	for _, s := range svc.Secrets {
		out = append(out, s.Source)
	}
	return out
}

func TestComposeWorkerHealthcheck(t *testing.T) {
	for _, f := range []composeFile{loadCompose(t, stackFile, stackEnv...), loadCompose(t, hostedFile, hostedEnv...)} {
		w := f.Services["worker"]
		require.NotNil(t, w.Healthcheck)
		assert.Equal(t, []string{"CMD", "planmode", "healthcheck", "http://127.0.0.1:9090/readyz"}, w.Healthcheck.Test)
		assert.Equal(t, ":9090", w.Environment[config.EnvName(keyMetricsAddress)], "readyz is served where the check asks")
		assert.Subset(t, w.SecurityOpt, []string{"seccomp=unconfined", "apparmor=unconfined", "systempaths=unconfined"},
			"bubblewrap needs user namespaces and an unmasked /proc to isolate commands")
	}
}

// minUIVersion is the oldest Web UI that decodes user metadata (activity
// summaries, the workflow's current details) through the codec server:
// with an encrypted history older ones show ciphertext.
var minUIVersion = []int{2, 51, 0}

// fullVersion is an exact release: no floating major or minor, no latest.
// majorMinor is one for the images of majorMinorImages.
var (
	fullVersion = regexp.MustCompile(`^v?(\d+)\.(\d+)\.(\d+)$`)
	majorMinor  = regexp.MustCompile(`^\d+\.\d+$`)
)

// majorMinorImages number their releases major.minor, so that is exact
// for them: PostgreSQL (16.14) and SeaweedFS (3.99).
var majorMinorImages = map[string]bool{"postgres": true, "chrislusf/seaweedfs": true}

func TestComposeImagesArePinned(t *testing.T) {
	overrides := map[string]string{"postgresql": "POSTGRESQL_VERSION", "temporal-schema": "TEMPORAL_ADMINTOOLS_VERSION",
		"temporal": "TEMPORAL_VERSION", "temporal-admin-tools": "TEMPORAL_ADMINTOOLS_VERSION", "temporal-ui": "TEMPORAL_UI_VERSION",
		"prometheus": "PROMETHEUS_VERSION", "grafana": "GRAFANA_VERSION", "worker": "PLANMODE_VERSION", "codec-server": "PLANMODE_VERSION",
		"seaweedfs": "SEAWEEDFS_VERSION", "store-bucket": "SEAWEEDFS_VERSION"}
	stack := loadCompose(t, stackFile, stackEnv...)
	for _, f := range []composeFile{stack, loadCompose(t, hostedFile, hostedEnv...)} {
		for name, svc := range f.Services {
			repo, tag, ok := strings.Cut(svc.Image, ":")
			require.True(t, ok, "%s: %s has no tag", name, svc.Image)
			if svc.Build.Context != "" {
				assert.Equal(t, "planmode", repo)
				assert.NotEqual(t, "latest", tag, "%s: a built image is named, not latest", name)
				continue
			}
			exact := fullVersion
			if majorMinorImages[repo] {
				exact = majorMinor
			}
			assert.Regexp(t, exact, tag, "%s: %s is not an exact version", name, svc.Image)
		}
	}
	env := append([]string{}, stackEnv...)
	for _, v := range overrides {
		env = append(env, v+"=9.8.7")
	}
	for name, svc := range loadCompose(t, stackFile, env...).Services {
		assert.True(t, strings.HasSuffix(svc.Image, ":9.8.7"), "%s ignores %s: %s", name, overrides[name], svc.Image)
	}

	m := fullVersion.FindStringSubmatch(strings.TrimPrefix(stack.Services["temporal-ui"].Image, "temporalio/ui:"))
	require.NotNil(t, m)
	got := []int{atoi(t, m[1]), atoi(t, m[2]), atoi(t, m[3])}
	assert.False(t, lessVersion(got, minUIVersion), "the Web UI %v is older than %v", got, minUIVersion)
}

func atoi(t *testing.T, s string) int {
	t.Helper()
	n, err := strconv.Atoi(s)
	require.NoError(t, err)
	return n
}

// lessVersion reports whether version a comes before b.
func lessVersion(a, b []int) bool {
	for i := range a {
		if a[i] != b[i] {
			return a[i] < b[i]
		}
	}
	return false
}

func TestComposeCodecServerServesTheWebUI(t *testing.T) {
	f := loadCompose(t, stackFile, stackEnv...)
	codec, ui := f.Services["codec-server"], f.Services["temporal-ui"]
	assert.Empty(t, codec.Profiles, "history is always encrypted, so the UI always needs the codec server")
	assert.Equal(t, []string{"planmode"}, codec.Entrypoint)
	assert.Equal(t, []string{"codec-server", "--listen", ":8081"}, codec.Command)
	require.Len(t, codec.Ports, 1)
	assert.Equal(t, composePort{HostIP: "127.0.0.1", Published: "8081", Target: "8081"}, codec.Ports[0])
	require.Len(t, ui.Ports, 1)
	assert.Equal(t, "http://localhost:"+codec.Ports[0].Published, ui.Environment["TEMPORAL_CODEC_ENDPOINT"],
		"the browser reaches the codec server where it is published")
	uiOrigin := "http://localhost:" + ui.Ports[0].Published
	assert.Equal(t, uiOrigin, codec.Environment[config.EnvName(keyCodecCORSOrigins)], "the codec server lets the UI call it")
	assert.Equal(t, uiOrigin, ui.Environment["TEMPORAL_CORS_ORIGINS"])

	// Behind a proxy both are public addresses, set once.
	f = loadCompose(t, stackFile, append(stackEnv, "PLANMODE_UI_ORIGIN=https://temporal.example.com",
		"PLANMODE_CODEC_URL=https://codec.example.com")...)
	assert.Equal(t, "https://codec.example.com", f.Services["temporal-ui"].Environment["TEMPORAL_CODEC_ENDPOINT"])
	assert.Equal(t, "https://temporal.example.com", f.Services["codec-server"].Environment[config.EnvName(keyCodecCORSOrigins)])
}

func TestComposeMetricsProfile(t *testing.T) {
	f := loadCompose(t, stackFile, stackEnv...)
	for name, svc := range f.Services {
		if name == "prometheus" || name == "grafana" {
			assert.Equal(t, []string{"metrics"}, svc.Profiles, "%s runs with --profile metrics only", name)
		} else {
			assert.Empty(t, svc.Profiles, "%s is part of the stack", name)
		}
	}
	assert.Contains(t, mountTargets(f.Services["prometheus"]), "/etc/prometheus/prometheus.yml")
	assert.Contains(t, mountTargets(f.Services["grafana"]), "/etc/grafana/provisioning")
	assert.Contains(t, mountTargets(f.Services["grafana"]), "/etc/grafana/dashboards")

	var prom struct {
		ScrapeConfigs []struct {
			JobName      string `yaml:"job_name"`
			DNSSDConfigs []struct {
				Names []string `yaml:"names"`
				Port  int      `yaml:"port"`
			} `yaml:"dns_sd_configs"`
		} `yaml:"scrape_configs"`
	}
	require.NoError(t, yaml.Unmarshal(readRepoFile(t, "deploy/prometheus/prometheus.yml"), &prom))
	scrapesWorkers := false
	for _, sc := range prom.ScrapeConfigs {
		for _, d := range sc.DNSSDConfigs {
			scrapesWorkers = scrapesWorkers || (len(d.Names) == 1 && d.Names[0] == "worker" && d.Port == 9090)
		}
	}
	assert.True(t, scrapesWorkers, "Prometheus scrapes every worker replica on :9090")

	var ds struct {
		Datasources []struct{ UID, Type, URL string } `yaml:"datasources"`
	}
	require.NoError(t, yaml.Unmarshal(readRepoFile(t, "deploy/grafana/provisioning/datasources/prometheus.yml"), &ds))
	require.Len(t, ds.Datasources, 1)
	assert.Equal(t, "prometheus", ds.Datasources[0].UID)
	assert.Equal(t, "http://prometheus:9090", ds.Datasources[0].URL)
}

// mountTargets lists where svc's volumes are mounted.
func mountTargets(svc composeService) []string {
	var out []string
	for _, v := range svc.Volumes {
		out = append(out, v.Target)
	}
	return out
}

// planmodeMetrics are the series planmode's workers export, as Prometheus
// names them: counters end in _total, timers are histograms in seconds.
var planmodeMetrics = []string{
	metrics.PlansStarted + "_total", metrics.PlansFinished + "_total", metrics.Steps + "_total",
	metrics.StepDuration + "_seconds", metrics.LLMCallDuration + "_seconds", metrics.LLMTokens + "_total",
	metrics.LLMCostMicroUSD + "_total", metrics.WebhookDeliveries + "_total", metrics.CommandsRun + "_total",
}

func TestComposeGrafanaDashboard(t *testing.T) {
	var dash struct {
		UID    string `json:"uid"`
		Panels []struct {
			Title      string `json:"title"`
			Type       string `json:"type"`
			Datasource struct {
				UID string `json:"uid"`
			} `json:"datasource"`
			Targets []struct {
				Expr string `json:"expr"`
			} `json:"targets"`
		} `json:"panels"`
	}
	require.NoError(t, json.Unmarshal(readRepoFile(t, "deploy/grafana/dashboards/planmode.json"), &dash))
	assert.NotEmpty(t, dash.UID)

	known := map[string]bool{}
	for _, m := range planmodeMetrics {
		known[m] = true
	}
	used := map[string]bool{}
	series := regexp.MustCompile(`\bplanmode_[a-z_]+`)
	for _, p := range dash.Panels {
		if p.Type == "row" {
			continue
		}
		assert.Equal(t, "prometheus", p.Datasource.UID, "panel %q", p.Title)
		require.NotEmpty(t, p.Targets, "panel %q", p.Title)
		for _, tg := range p.Targets {
			for _, name := range series.FindAllString(tg.Expr, -1) {
				for _, suffix := range []string{"_bucket", "_sum", "_count"} {
					name = strings.TrimSuffix(name, suffix)
				}
				assert.True(t, known[name], "panel %q queries %s, which planmode does not export", p.Title, name)
				used[name] = true
			}
		}
	}
	for _, m := range planmodeMetrics {
		assert.True(t, used[m], "no panel shows %s", m)
	}
}

func TestComposeInitSecrets(t *testing.T) {
	root, err := devserver.RepoRoot()
	require.NoError(t, err)
	dir := t.TempDir()
	envFile, secrets := filepath.Join(dir, "stack.env"), filepath.Join(dir, "secrets")
	run := func() {
		cmd := exec.Command("sh", filepath.Join(root, "deploy/init-secrets.sh"))
		cmd.Env = append(os.Environ(), "PLANMODE_ENV_FILE="+envFile, "PLANMODE_SECRETS_DIR="+secrets)
		out, err := cmd.CombinedOutput()
		require.NoError(t, err, "%s", out)
	}
	run()
	env, err := os.ReadFile(envFile)
	require.NoError(t, err)
	assert.Regexp(t, `(?m)^POSTGRES_PASSWORD=[A-Za-z0-9]{32}$`, string(env))
	codecKey, err := os.ReadFile(filepath.Join(secrets, "codec_key"))
	require.NoError(t, err)
	assert.Regexp(t, `^k[0-9]{8}:[A-Za-z0-9+/]{43}=\n$`, string(codecKey), "keyID:base64 of 32 bytes")
	info, err := os.Stat(secrets)
	require.NoError(t, err)
	assert.Equal(t, os.FileMode(0o700), info.Mode().Perm())
	for _, name := range []string{"llm_api_key", "webhook_secret", "temporal_api_key", "codec_key", "grafana_admin_password",
		"store_access_key", "store_secret_key", "store_s3_config", "serve_tokens"} {
		info, err := os.Stat(filepath.Join(secrets, name))
		require.NoError(t, err)
		assert.Equal(t, os.FileMode(0o644), info.Mode().Perm(), "%s is readable by the containers' users", name)
	}

	assertStoreConfigNamesTheKeys(t, secrets)

	// Run again: nothing changes.
	run()
	again, err := os.ReadFile(envFile)
	require.NoError(t, err)
	assert.Equal(t, string(env), string(again))
	keyAgain, err := os.ReadFile(filepath.Join(secrets, "codec_key"))
	require.NoError(t, err)
	assert.Equal(t, string(codecKey), string(keyAgain))

	// What it wrote is what the stack needs.
	lines := append(strings.Split(string(env), "\n"), "PLANMODE_SECRETS_DIR="+secrets)
	_, err = renderCompose(t, stackFile, lines, "--profile", "metrics", "config", "-q")
	assert.NoError(t, err)
}
