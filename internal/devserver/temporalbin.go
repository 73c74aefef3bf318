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

// BinaryEnv names the variable that points at a Temporal CLI to use as is,
// for client commands (temporal workflow …, temporal operator …) and as the
// dev server (temporal server start-dev).
const BinaryEnv = "PLANMODE_TEMPORAL_BIN"

// modulePath identifies the repository's go.mod.
const modulePath = "github.com/planmode/planmode"

// FindTemporal returns the Temporal CLI that runs client commands and the
// dev server: $PLANMODE_TEMPORAL_BIN when executable, else the Temporal CLI
// v1.9.1 (Temporal Server 1.32, Web UI 2.54) that
// scripts/install-temporal.sh builds into .cache/bin when it is missing or
// older than its sources (scripts/temporal-cli) and otherwise only names,
// in milliseconds. It returns an error when the repository cannot be found
// or the build fails.
func FindTemporal(ctx context.Context) (string, error) {
	if p := os.Getenv(BinaryEnv); p != "" && executable(p) {
		return p, nil
	}
	root, err := RepoRoot()
	if err != nil {
		return "", err
	}
	script := filepath.Join(root, "scripts", "install-temporal.sh")
	var stdout, stderr bytes.Buffer
	cmd := exec.CommandContext(ctx, "bash", script)
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("install the Temporal CLI with %s: %w: %s", script, err, strings.TrimSpace(stderr.String()))
	}
	lines := strings.Split(strings.TrimSpace(stdout.String()), "\n")
	bin := strings.TrimSpace(lines[len(lines)-1])
	if !executable(bin) {
		return "", fmt.Errorf("install the Temporal CLI: %s printed %q, which is not executable", script, bin)
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
