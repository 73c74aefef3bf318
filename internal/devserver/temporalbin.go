package devserver

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
)

// BinaryEnv names the variable that points at a Temporal CLI to use as is
// for client commands (temporal workflow …, temporal operator …).
const BinaryEnv = "PLANMODE_TEMPORAL_BIN"

// ServerBinaryEnv names the variable that points at a dev server to run
// instead of the project's own build of Temporal Server 1.32.
const ServerBinaryEnv = "PLANMODE_TEMPORAL_SERVER_BIN"

// modulePath identifies the repository's go.mod.
const modulePath = "github.com/planmode/planmode"

// FindTemporal returns the Temporal CLI to run client commands with:
// $PLANMODE_TEMPORAL_BIN when executable, the repository's cached
// .cache/bin/temporal, or whatever scripts/install-temporal.sh installs (it
// prints the path). It returns an error when the repository cannot be
// found or the install fails.
func FindTemporal(ctx context.Context) (string, error) {
	if p := os.Getenv(BinaryEnv); p != "" && executable(p) {
		return p, nil
	}
	root, err := RepoRoot()
	if err != nil {
		return "", err
	}
	if cached := filepath.Join(root, ".cache", "bin", "temporal"); executable(cached) {
		return cached, nil
	}
	return install(ctx, root, "the Temporal CLI")
}

// FindServer returns the dev server to run: $PLANMODE_TEMPORAL_SERVER_BIN
// when executable, else the project's own dev server on Temporal Server
// 1.32 and Web UI 2.54 (scripts/temporal-server), which
// `scripts/install-temporal.sh server` builds into .cache/bin when it is
// missing or older than its sources and otherwise only names (a few
// milliseconds). The CLI cannot be built at a current version from the Go
// module proxy, the server can. It returns an error when the repository
// cannot be found or the build fails.
func FindServer(ctx context.Context) (string, error) {
	if p := os.Getenv(ServerBinaryEnv); p != "" && executable(p) {
		return p, nil
	}
	root, err := RepoRoot()
	if err != nil {
		return "", err
	}
	return install(ctx, root, "the Temporal dev server", "server")
}

// install runs scripts/install-temporal.sh with args and returns the
// executable path it prints last.
func install(ctx context.Context, root, what string, args ...string) (string, error) {
	script := filepath.Join(root, "scripts", "install-temporal.sh")
	var stdout, stderr bytes.Buffer
	cmd := exec.CommandContext(ctx, "bash", append([]string{script}, args...)...)
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("install %s with %s: %w: %s", what, script, err, strings.TrimSpace(stderr.String()))
	}
	lines := strings.Split(strings.TrimSpace(stdout.String()), "\n")
	bin := strings.TrimSpace(lines[len(lines)-1])
	if !executable(bin) {
		return "", fmt.Errorf("install %s: %s printed %q, which is not executable", what, script, bin)
	}
	return bin, nil
}

// RepoRoot returns the folder of planmode's go.mod, looked for upwards from
// the working directory and then from this source file.
func RepoRoot() (string, error) {
	var starts []string
	if wd, err := os.Getwd(); err == nil {
		starts = append(starts, wd)
	}
	if _, file, _, ok := runtime.Caller(0); ok {
		starts = append(starts, filepath.Dir(file))
	}
	for _, dir := range starts {
		for {
			if isModuleRoot(dir) {
				return dir, nil
			}
			parent := filepath.Dir(dir)
			if parent == dir {
				break
			}
			dir = parent
		}
	}
	return "", errors.New("cannot find the planmode repository (a go.mod declaring " + modulePath + ")")
}

func isModuleRoot(dir string) bool {
	b, err := os.ReadFile(filepath.Join(dir, "go.mod"))
	if err != nil {
		return false
	}
	first, _, _ := strings.Cut(string(b), "\n")
	return strings.TrimSpace(first) == "module "+modulePath
}

func executable(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && !fi.IsDir() && fi.Mode()&0o111 != 0
}
