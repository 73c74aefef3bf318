package cli

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.temporal.io/api/serviceerror"

	"github.com/planmode/planmode/internal/config"
	"github.com/planmode/planmode/serve"
)

func TestServeNeedsATokensFile(t *testing.T) {
	t.Setenv(config.EnvName(config.KeyServeTokensFile), "")
	d, _, errOut := newTestDeps(t, "")
	assert.Equal(t, exitRejected, run(context.Background(), d, []string{"serve"}))
	assert.Contains(t, errOut.String(), "serve needs tokens: set serve.tokensFile (PLANMODE_SERVE_TOKENSFILE, or --tokens-file)")
}

func TestServeRefusesAMalformedTokensFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "tokens")
	require.NoError(t, os.WriteFile(path, []byte("# ops\n0123456789abcdef-token\n"), 0o600))
	d, _, errOut := newTestDeps(t, "")
	// Refused before Temporal is dialled: none runs here.
	assert.Equal(t, exitRejected, run(context.Background(), d, []string{"serve", "--tokens-file", path}))
	assert.Contains(t, errOut.String(), "tokens file "+path+": line 2: 1 fields: want TOKEN IDENTITY [TENANT,...]")
	assert.NotContains(t, errOut.String(), "0123456789abcdef-token", "a token is never printed")
}

func TestServeAnnouncesWhereItListens(t *testing.T) {
	var out, errOut bytes.Buffer
	announceServe(&out, &errOut, "127.0.0.1:8088", 2, []string{"https://ops.example.com"})
	assert.Contains(t, out.String(), "planmode serve listening on http://127.0.0.1:8088\n")
	assert.Contains(t, out.String(), "browser origins: https://ops.example.com")
	assert.Empty(t, errOut.String())
	announceServe(&out, &errOut, "[::]:8088", 2, nil)
	assert.Contains(t, errOut.String(), "serve listens beyond this host on [::]:8088")
}

// planSource is the server's Source.
var _ serve.Source = (*planSource)(nil)

func TestServeUnknownPlanIsTemporalsNotFound(t *testing.T) {
	err := unknownPlan(serviceerror.NewNotFound("workflow not found for ID: plan-1"))
	assert.ErrorIs(t, err, serve.ErrUnknownPlan)
	other := errors.New("unavailable")
	assert.Equal(t, other, unknownPlan(other))
	assert.NotErrorIs(t, unknownPlan(serviceerror.NewNamespaceNotFound("default")), serve.ErrUnknownPlan,
		"a namespace that is missing is the server's configuration, not an unknown plan")
}
