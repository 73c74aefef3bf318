package config

import (
	"errors"
	"fmt"

	"github.com/planmode/planmode/internal/secretfile"
)

// readSecretFiles fills each secret from its …File setting, so that
// secrets can come from mounted files (compose or Kubernetes secrets)
// instead of the environment, where every child process and
// /proc/<pid>/environ would see them. Files are read by secretfile.Read,
// but for one exception: here an empty file means no secret, as if the
// setting were unset, so that a stack can mount an empty file for
// "offline model" or "unsigned webhooks" (deploy/init-secrets.sh creates
// them so). Setting both a secret and its file is an error.
func (c *Config) readSecretFiles() error {
	for _, s := range []struct {
		key, fileKey string
		file         string
		value        *string
	}{
		{KeyTemporalAPIKey, KeyTemporalKeyFile, c.Temporal.APIKeyFile, &c.Temporal.APIKey},
		{KeyLLMAPIKey, KeyLLMAPIKeyFile, c.LLM.APIKeyFile, &c.LLM.APIKey},
		{KeyWebhookSecret, KeySecretFile, c.Notify.WebhookSecretFile, &c.Notify.WebhookSecret},
	} {
		if s.file == "" {
			continue
		}
		if *s.value != "" {
			return fmt.Errorf("config: %s and %s are both set: keep one", s.key, s.fileKey)
		}
		v, err := secretfile.Read(s.file)
		if errors.Is(err, secretfile.ErrEmpty) {
			continue
		}
		if err != nil {
			return fmt.Errorf("config: %s: %w", s.fileKey, err)
		}
		*s.value = v
	}
	return nil
}

// GuardedPath is a path the plans' file tools must not reach, and the
// setting it comes from.
type GuardedPath struct {
	// Key is the setting's key, or GuardedConfigFile.
	Key  string
	Path string
	// Store marks a folder the worker writes and prunes (full outputs,
	// snapshots): the workspace must not lie in it either.
	Store bool
}

// GuardedConfigFile is the Key of the configuration file in GuardedPaths:
// it has no key of its own.
const GuardedConfigFile = "the configuration file"

// GuardedStateDir and GuardedBlobCache are the Keys of the worker's own
// folders in GuardedPaths (StateDir: stat caches and steps' private
// copies; BlobCacheDir: blobs read from a remote store).
const (
	GuardedStateDir  = "the worker's state folder"
	GuardedBlobCache = "the worker's blob cache"
)

// GuardedPaths lists what the worker refuses to start with inside
// workspace.root, where a plan's file tools could read or change it: the
// files of SecretFiles, the full outputs' folder and the snapshots'
// (DefaultSnapshotDir when unset). Unset settings are left out.
func (c Config) GuardedPaths() []GuardedPath {
	snapshots := c.Workspace.SnapshotDir
	if snapshots == "" {
		snapshots = DefaultSnapshotDir()
	}
	var out []GuardedPath
	for _, g := range []GuardedPath{
		{Key: GuardedConfigFile, Path: c.File},
		{Key: KeyTemporalKeyFile, Path: c.Temporal.APIKeyFile},
		{Key: KeyLLMAPIKeyFile, Path: c.LLM.APIKeyFile},
		{Key: KeySecretFile, Path: c.Notify.WebhookSecretFile},
		{Key: KeyTLSKeyFile, Path: c.Temporal.TLS.KeyFile},
		{Key: KeyCodecKeyFile, Path: c.Codec.KeyFile},
		{Key: KeyCodecAuthTokenFile, Path: c.Codec.AuthTokenFile},
		// Prompt templates steer every later plan: a plan must not rewrite them.
		{Key: KeyPromptDir, Path: c.LLM.PromptDir},
		{Key: KeyOutputsDir, Path: c.Outputs.Dir, Store: true},
		{Key: KeySnapshotDir, Path: snapshots, Store: true},
		{Key: KeyStore, Path: c.Workspace.StoreDir(), Store: true},
		{Key: GuardedStateDir, Path: StateDir(), Store: true},
		{Key: GuardedBlobCache, Path: BlobCacheDir(), Store: true},
		{Key: KeyStoreAccessKeyFile, Path: c.Workspace.StoreAccessKeyFile},
		{Key: KeyStoreSecretKeyFile, Path: c.Workspace.StoreSecretKeyFile},
	} {
		if g.Path != "" {
			out = append(out, g)
		}
	}
	return append(out, c.MCP.guardedPaths()...)
}
