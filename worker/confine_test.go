package main

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/planmode/planmode/internal/config"
)

func TestCheckWorkspaceKeepsTheWorkersFilesOutOfIt(t *testing.T) {
	cases := []struct {
		name string
		// set changes a configuration whose workspace.root is ws and whose
		// other paths lie in outside.
		set     func(t *testing.T, c *config.Config, ws, outside string)
		wantErr []string
	}{
		{name: "everything outside", set: func(*testing.T, *config.Config, string, string) {}},
		{name: "outputs.dir inside", set: func(_ *testing.T, c *config.Config, ws, _ string) {
			c.Outputs.Dir = filepath.Join(ws, "outputs")
		}, wantErr: []string{"outputs.dir", "lies in workspace.root", "PLANMODE_OUTPUTS_DIR"}},
		{name: "outputs.dir is the workspace", set: func(_ *testing.T, c *config.Config, ws, _ string) {
			c.Outputs.Dir = ws
		}, wantErr: []string{"outputs.dir", "lies in workspace.root"}},
		{name: "outputs.dir not made yet, inside", set: func(_ *testing.T, c *config.Config, ws, _ string) {
			c.Outputs.Dir = filepath.Join(ws, "a", "b", "outputs")
		}, wantErr: []string{"outputs.dir", "lies in workspace.root"}},
		{name: "outputs.dir through a symlink into the workspace", set: func(t *testing.T, c *config.Config, ws, outside string) {
			require.NoError(t, os.Mkdir(filepath.Join(ws, "out"), 0o700))
			require.NoError(t, os.Symlink(filepath.Join(ws, "out"), filepath.Join(outside, "link")))
			c.Outputs.Dir = filepath.Join(outside, "link", "outputs")
		}, wantErr: []string{"outputs.dir", "lies in workspace.root"}},
		{name: "outputs.dir through a dangling symlink into the workspace", set: func(t *testing.T, c *config.Config, ws, outside string) {
			require.NoError(t, os.Symlink(filepath.Join(ws, "later"), filepath.Join(outside, "dangling")))
			c.Outputs.Dir = filepath.Join(outside, "dangling", "outputs")
		}, wantErr: []string{"outputs.dir", "lies in workspace.root"}},
		{name: "workspace.root through a symlink", set: func(t *testing.T, c *config.Config, ws, outside string) {
			require.NoError(t, os.Symlink(ws, filepath.Join(outside, "ws-link")))
			c.Workspace.Root = filepath.Join(outside, "ws-link")
			c.Outputs.Dir = filepath.Join(ws, "outputs")
		}, wantErr: []string{"outputs.dir", "lies in workspace.root"}},
		{name: "workspace inside outputs.dir", set: func(_ *testing.T, c *config.Config, ws, _ string) {
			c.Outputs.Dir = filepath.Dir(ws)
		}, wantErr: []string{"workspace.root", "lies in outputs.dir", "whose folders the worker removes"}},
		{name: "workspace.snapshotDir inside", set: func(_ *testing.T, c *config.Config, ws, _ string) {
			c.Workspace.SnapshotDir = filepath.Join(ws, ".snapshots")
		}, wantErr: []string{"workspace.snapshotDir", "lies in workspace.root", "PLANMODE_WORKSPACE_SNAPSHOTDIR"}},
		{name: "the default snapshot folder inside", set: func(t *testing.T, c *config.Config, ws, _ string) {
			t.Setenv("XDG_CACHE_HOME", filepath.Join(ws, ".cache"))
			c.Workspace.SnapshotDir = ""
		}, wantErr: []string{"workspace.snapshotDir", "planmode/snapshots", "lies in workspace.root"}},
		{name: "workspace.store inside", set: func(_ *testing.T, c *config.Config, ws, _ string) {
			c.Workspace.Store = filepath.Join(ws, ".store")
		}, wantErr: []string{"workspace.store", "lies in workspace.root"}},
		{name: "an s3 store is no folder", set: func(_ *testing.T, c *config.Config, _, _ string) {
			c.Workspace.Store = "s3://bucket/prefix?endpoint=127.0.0.1:9"
		}},
		{name: "the worker's state folder inside", set: func(t *testing.T, c *config.Config, ws, _ string) {
			t.Setenv("XDG_CACHE_HOME", filepath.Join(ws, ".cache"))
		}, wantErr: []string{"the worker's state folder", "lies in workspace.root"}},
		{name: "workspace inside the snapshot folder", set: func(_ *testing.T, c *config.Config, ws, _ string) {
			c.Workspace.SnapshotDir = filepath.Dir(ws)
		}, wantErr: []string{"lies in workspace.snapshotDir"}},
		{name: "codec.keyFile inside", set: func(_ *testing.T, c *config.Config, ws, _ string) {
			c.Codec.KeyFile = filepath.Join(ws, "codec.keys")
		}, wantErr: []string{"codec.keyFile", "lies in workspace.root", "PLANMODE_CODEC_KEYFILE"}},
		{name: "llm.promptDir inside", set: func(_ *testing.T, c *config.Config, ws, _ string) {
			c.LLM.PromptDir = filepath.Join(ws, "prompts")
		}, wantErr: []string{"llm.promptDir", "lies in workspace.root"}},
		{name: "llm.apiKeyFile inside", set: func(_ *testing.T, c *config.Config, ws, _ string) {
			c.LLM.APIKeyFile = filepath.Join(ws, "key")
		}, wantErr: []string{"llm.apiKeyFile", "lies in workspace.root"}},
		{name: "temporal.apiKeyFile inside", set: func(_ *testing.T, c *config.Config, ws, _ string) {
			c.Temporal.APIKeyFile = filepath.Join(ws, "key")
		}, wantErr: []string{"temporal.apiKeyFile", "lies in workspace.root"}},
		{name: "notify.webhookSecretFile inside", set: func(_ *testing.T, c *config.Config, ws, _ string) {
			c.Notify.WebhookSecretFile = filepath.Join(ws, "secret")
		}, wantErr: []string{"notify.webhookSecretFile", "lies in workspace.root"}},
		{name: "temporal.tls.keyFile inside", set: func(_ *testing.T, c *config.Config, ws, _ string) {
			c.Temporal.TLS.KeyFile = filepath.Join(ws, "tls.key")
		}, wantErr: []string{"temporal.tls.keyFile", "lies in workspace.root"}},
		{name: "codec.authTokenFile inside", set: func(_ *testing.T, c *config.Config, ws, _ string) {
			c.Codec.AuthTokenFile = filepath.Join(ws, "token")
		}, wantErr: []string{"codec.authTokenFile", "lies in workspace.root"}},
		{name: "a secret file linked from outside", set: func(t *testing.T, c *config.Config, ws, outside string) {
			require.NoError(t, os.WriteFile(filepath.Join(ws, "key"), []byte("k"), 0o600))
			require.NoError(t, os.Symlink(filepath.Join(ws, "key"), filepath.Join(outside, "key")))
			c.LLM.APIKeyFile = filepath.Join(outside, "key")
		}, wantErr: []string{"llm.apiKeyFile", "lies in workspace.root"}},
		{name: "the configuration file inside", set: func(_ *testing.T, c *config.Config, ws, _ string) {
			c.File = filepath.Join(ws, config.FileName)
		}, wantErr: []string{"the configuration file", "lies in workspace.root", "--config", "PLANMODE_CONFIG"}},
		{name: "the file system's root", set: func(_ *testing.T, c *config.Config, _, _ string) {
			c.Workspace.Root = "/"
		}, wantErr: []string{"workspace.root / is the file system's root", "PLANMODE_WORKSPACE_ROOT", "--workspace-root"}},
		{name: "the file system's root through a symlink", set: func(t *testing.T, c *config.Config, _, outside string) {
			require.NoError(t, os.Symlink("/", filepath.Join(outside, "slash")))
			c.Workspace.Root = filepath.Join(outside, "slash")
		}, wantErr: []string{"is the file system's root"}},
		{name: "a missing workspace", set: func(_ *testing.T, c *config.Config, ws, _ string) {
			c.Workspace.Root = filepath.Join(ws, "missing")
		}, wantErr: []string{"workspace.root"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			base := t.TempDir()
			ws, outside := filepath.Join(base, "ws"), filepath.Join(base, "outside")
			require.NoError(t, os.Mkdir(ws, 0o700))
			require.NoError(t, os.Mkdir(outside, 0o700))
			cfg := config.Config{
				Workspace: config.Workspace{Root: ws, SnapshotDir: filepath.Join(outside, "snapshots")},
				Outputs:   config.Outputs{Dir: filepath.Join(outside, "outputs")},
				Codec:     config.Codec{KeyFile: filepath.Join(outside, "codec.keys")},
				File:      filepath.Join(outside, config.FileName),
			}
			tc.set(t, &cfg, ws, outside)
			err := checkWorkspace(cfg)
			if len(tc.wantErr) == 0 {
				require.NoError(t, err)
				return
			}
			require.Error(t, err)
			for _, want := range tc.wantErr {
				assert.Contains(t, err.Error(), want)
			}
		})
	}
}

func TestResolve(t *testing.T) {
	dir, err := filepath.EvalSymlinks(t.TempDir())
	require.NoError(t, err)
	require.NoError(t, os.Mkdir(filepath.Join(dir, "real"), 0o700))
	require.NoError(t, os.Symlink("real", filepath.Join(dir, "rel")))
	require.NoError(t, os.Symlink(filepath.Join(dir, "loop"), filepath.Join(dir, "loop")))
	cases := map[string]string{
		filepath.Join(dir, "real", "x"):         filepath.Join(dir, "real", "x"),
		filepath.Join(dir, "rel", "not", "yet"): filepath.Join(dir, "real", "not", "yet"),
		filepath.Join(dir, "none", "at", "all"): filepath.Join(dir, "none", "at", "all"),
	}
	for in, want := range cases {
		got, err := resolve(in)
		require.NoError(t, err, in)
		assert.Equal(t, want, got, in)
	}
	_, err = resolve(filepath.Join(dir, "loop", "x"))
	assert.Error(t, err, "a symlink loop ends")
}
