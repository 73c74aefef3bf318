package version_test

import (
	"bufio"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/planmode/planmode/internal/config"
	"github.com/planmode/planmode/internal/devserver"
)

// Stamped into the binaries these tests build, as make build and the
// Dockerfile stamp a release.
const (
	stampVersion = "0.1.0-test"
	stampCommit  = "abc123def456"
	versionPkg   = "github.com/planmode/planmode/internal/version"
)

var ldflags = "-X " + versionPkg + ".version=" + stampVersion + " -X " + versionPkg + ".commit=" + stampCommit

// repoRoot returns the module's root folder.
func repoRoot(t *testing.T) string {
	t.Helper()
	root, err := devserver.RepoRoot()
	require.NoError(t, err)
	return root
}

// goOutput runs the go command in the module's root and returns its
// output.
func goOutput(t *testing.T, args ...string) string {
	t.Helper()
	cmd := exec.Command("go", args...)
	cmd.Dir = repoRoot(t)
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "go %v: %s", args, out)
	return string(out)
}

// build builds pkg with the release's link flags into a temporary folder.
func build(t *testing.T, pkg string) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), filepath.Base(pkg))
	goOutput(t, "build", "-ldflags", ldflags, "-o", bin, pkg)
	return bin
}

// sdkVersion is the Temporal Go SDK version go.mod requires.
func sdkVersion(t *testing.T) string {
	t.Helper()
	return strings.TrimSpace(goOutput(t, "list", "-m", "-f", "{{.Version}}", "go.temporal.io/sdk"))
}

// TestBinariesPrintTheStampedVersion builds the CLI and the worker with
// the link flags of a release and runs `planmode --version`, `planmode
// version` and `planmode-worker --version`: each prints the version, the
// commit and the SDK it links, with no server and no configuration.
func TestBinariesPrintTheStampedVersion(t *testing.T) {
	sdk := sdkVersion(t)
	cases := []struct {
		pkg, program string
		args         []string
	}{
		{"./starter", "planmode", []string{"--version"}},
		{"./starter", "planmode", []string{"version"}},
		{"./worker", "planmode-worker", []string{"--version"}},
	}
	bins := map[string]string{}
	for _, tc := range cases {
		if bins[tc.pkg] == "" {
			bins[tc.pkg] = build(t, tc.pkg)
		}
		cmd := exec.Command(bins[tc.pkg], tc.args...)
		cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "PLANMODE_TEMPORAL_ADDRESS=127.0.0.1:1"}
		cmd.Dir = t.TempDir()
		out, err := cmd.CombinedOutput()
		require.NoError(t, err, "%s %v: %s", tc.program, tc.args, out)
		assert.Equal(t, tc.program+" "+stampVersion+" (commit "+stampCommit+", Temporal Go SDK "+sdk+")\n", string(out),
			"%s %v", tc.program, tc.args)
	}
}

// TestWorkerStartLineNamesTheBuild runs the stamped worker binary against
// a dev server with the offline model: its "worker started" line carries
// the version, the commit and the SDK, and the build id (worker
// versioning) they make.
func TestWorkerStartLineNamesTheBuild(t *testing.T) {
	sdk := sdkVersion(t)
	bin := build(t, "./worker")
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	srv, err := devserver.Start(ctx, devserver.Config{})
	require.NoError(t, err)
	t.Cleanup(func() { assert.NoError(t, srv.Stop()) })

	env := map[string]string{
		config.KeyAddress:       srv.Address(),
		config.KeyNamespace:     srv.Namespace,
		config.KeyTaskQueue:     "version-" + stampCommit,
		config.KeyWorkspaceRoot: t.TempDir(),
		config.KeyOutputsDir:    t.TempDir(),
		config.KeySnapshotDir:   t.TempDir(),
		config.KeyLogFormat:     "json",
	}
	cmd := exec.CommandContext(ctx, bin)
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + t.TempDir()}
	for k, v := range env {
		cmd.Env = append(cmd.Env, config.EnvName(k)+"="+v)
	}
	cmd.Dir = t.TempDir()
	stdout, err := cmd.StdoutPipe()
	require.NoError(t, err)
	require.NoError(t, cmd.Start())
	t.Cleanup(func() {
		_ = cmd.Process.Signal(syscall.SIGTERM)
		_ = cmd.Wait()
	})

	started := map[string]any{}
	sc := bufio.NewScanner(stdout)
	for sc.Scan() {
		var line map[string]any
		if json.Unmarshal(sc.Bytes(), &line) == nil && line["msg"] == "worker started" {
			started = line
			break
		}
	}
	require.NotEmpty(t, started, "the worker logs its start")
	assert.Equal(t, stampVersion, started["version"])
	assert.Equal(t, stampCommit, started["commit"])
	assert.Equal(t, sdk, started["sdk"])
	assert.Equal(t, stampVersion+"+"+stampCommit, started["buildId"], "the stamped version and commit are the build id")
	assert.Equal(t, config.DefaultDeploymentName, started["deployment"])
	assert.Equal(t, true, started["current"], "the first build of a deployment makes itself current")
}

// TestMakefileStampsTheBuildAndTheImage checks what make build and make
// image would run (make -n): the link flags with VERSION and COMMIT, and
// the docker build line with both as build arguments.
func TestMakefileStampsTheBuildAndTheImage(t *testing.T) {
	if _, err := exec.LookPath("make"); err != nil {
		t.Skip("no make")
	}
	// --no-print-directory: under make test, MAKELEVEL makes a nested make
	// announce the folders it enters.
	cmd := exec.Command("make", "-n", "--no-print-directory", "build", "image", "VERSION="+stampVersion, "COMMIT="+stampCommit, "GO=go")
	cmd.Dir = repoRoot(t)
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "%s", out)
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	require.Len(t, lines, 3, "%s", out)
	for i, pkg := range []string{"bin/planmode ./starter", "bin/planmode-worker ./worker"} {
		assert.Equal(t, `go build -ldflags "`+ldflags+`" -o `+pkg, lines[i])
	}
	assert.Equal(t, "docker build --build-arg VERSION="+stampVersion+" --build-arg COMMIT="+stampCommit+
		" -t planmode:"+stampVersion+" .", lines[2])

	// Without VERSION, git describe names the build.
	cmd = exec.Command("make", "-n", "build")
	cmd.Dir = repoRoot(t)
	out, err = cmd.CombinedOutput()
	require.NoError(t, err, "%s", out)
	assert.Regexp(t, regexp.MustCompile(`internal/version\.version=\S+ .*internal/version\.commit=\S+`), string(out))
}

// TestDockerfileStampsTheBinaries checks that the Dockerfile takes the
// version and the commit as build arguments (.git is not in the build
// context) and links both into both binaries; no container engine runs
// here.
func TestDockerfileStampsTheBinaries(t *testing.T) {
	b, err := os.ReadFile(filepath.Join(repoRoot(t), "Dockerfile"))
	require.NoError(t, err)
	df := string(b)
	stages := strings.Split(df, "\nFROM ")
	var buildStage string
	for _, s := range stages {
		if strings.Contains(s, " AS build\n") {
			buildStage = s
		}
	}
	require.NotEmpty(t, buildStage, "a build stage")
	assert.Contains(t, buildStage, "\nARG VERSION=")
	assert.Contains(t, buildStage, "\nARG COMMIT=")
	assert.Contains(t, buildStage, "-X "+versionPkg+".version=${VERSION}")
	assert.Contains(t, buildStage, "-X "+versionPkg+".commit=${COMMIT}")
	assert.Equal(t, 2, strings.Count(buildStage, `go build -trimpath -ldflags "$LDFLAGS"`), "both binaries are stamped")
}

// TestChangelogBeginsWithTheFirstRelease keeps CHANGELOG.md's head the
// release make build names outside a git checkout.
func TestChangelogBeginsWithTheFirstRelease(t *testing.T) {
	b, err := os.ReadFile(filepath.Join(repoRoot(t), "CHANGELOG.md"))
	require.NoError(t, err)
	first, _, _ := strings.Cut(string(b), "\n")
	assert.Regexp(t, `^## (Unreleased|\d+\.\d+\.\d+)$`, first, "the changes under way, or the last release, come first")
	assert.Contains(t, string(b), "\n## 0.1.0\n", "the first release stays")
	mk, err := os.ReadFile(filepath.Join(repoRoot(t), "Makefile"))
	require.NoError(t, err)
	assert.Contains(t, string(mk), "|| echo 0.1.0-dev)", "outside git, make build says the release under way")
}
