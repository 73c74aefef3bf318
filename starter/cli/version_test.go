package cli

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/planmode/planmode/internal/config"
	"github.com/planmode/planmode/internal/version"
)

func TestVersionFlagPrintsTheBuild(t *testing.T) {
	want := version.String("planmode") + "\n"
	for _, args := range [][]string{{"--version"}, {"-v"}, {"--version", "--address", nowhere(t)}, {"version"}} {
		d, out, errOut := newTestDeps(t, "")
		code := run(context.Background(), d, args)
		assert.Equal(t, exitOK, code, errOut.String())
		assert.Equal(t, want, out.String(), "%v: no server is needed", args)
	}
	// A test binary records no dependencies: internal/version's build
	// test runs a built binary for the SDK's version.
	assert.Regexp(t, `^planmode \S+ \(commit \S+, Temporal Go SDK \S+\)\n$`, want)
}

func TestVersionCommandAnswersWithABrokenConfiguration(t *testing.T) {
	d, out, errOut := newTestDeps(t, "")
	bad := filepath.Join(t.TempDir(), "planmode.yaml")
	require.NoError(t, os.WriteFile(bad, []byte("temporal: [\n"), 0o600))
	t.Setenv(config.ConfigEnv, bad)
	code := run(context.Background(), d, []string{"version", "--output", "json"})
	require.Equal(t, exitOK, code, errOut.String())
	var got buildInfo
	require.NoError(t, json.Unmarshal(out.Bytes(), &got))
	assert.Equal(t, buildInfo{Version: version.Version(), Commit: version.Commit(), TemporalSDK: version.SDK()}, got)

	d, _, errOut = newTestDeps(t, "")
	assert.Equal(t, exitRejected, run(context.Background(), d, []string{"version", "--output", "xml"}))
	assert.Contains(t, errOut.String(), `--output "xml"`)
}
