package config

import (
	"fmt"
	"io"
	"os"
	"strings"
)

// maxSecretFileBytes bounds a secret file: a key is a line, not a document.
const maxSecretFileBytes = 64 << 10

// readSecretFiles fills each secret from its …File setting, so that
// secrets can come from mounted files (compose or Kubernetes secrets)
// instead of the environment, where every child process and
// /proc/<pid>/environ would see them. An empty file means no secret: a
// stack can mount an empty file for "offline model" or "unsigned
// webhooks". Setting both a secret and its file is an error.
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
		v, err := readSecretFile(s.file)
		if err != nil {
			return fmt.Errorf("config: %s: %w", s.fileKey, err)
		}
		*s.value = v
	}
	return nil
}

// readSecretFile returns the file's content without surrounding space. Its
// errors never quote the content.
func readSecretFile(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, maxSecretFileBytes+1))
	if err != nil {
		return "", fmt.Errorf("read %s: %w", path, err)
	}
	if len(b) > maxSecretFileBytes {
		return "", fmt.Errorf("%s is larger than %d bytes", path, maxSecretFileBytes)
	}
	return strings.TrimSpace(string(b)), nil
}

// SecretFiles lists the files that hold secrets or settings a plan must not
// read: the configuration file, the secret files, the TLS key and the
// codec's keys and token. The worker refuses to start when one lies in the
// workspace, where the file tools could read it.
func (c Config) SecretFiles() []string {
	var out []string
	for _, f := range []string{c.File, c.Temporal.APIKeyFile, c.LLM.APIKeyFile, c.Notify.WebhookSecretFile,
		c.Temporal.TLS.KeyFile, c.Codec.KeyFile, c.Codec.AuthTokenFile} {
		if f != "" {
			out = append(out, f)
		}
	}
	return out
}
