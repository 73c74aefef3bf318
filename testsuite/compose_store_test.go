package testsuite

import (
	"encoding/json"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/planmode/planmode/internal/config"
)

// Tests of the blob store in the compose stack: the workers keep every
// plan's files in SeaweedFS over S3, so no two of them share a volume.

func TestComposeWorkspaceStore(t *testing.T) {
	f := loadCompose(t, stackFile, stackEnv...)

	store := f.Services["seaweedfs"]
	assert.True(t, strings.HasPrefix(store.Image, "chrislusf/seaweedfs:3."), "SeaweedFS 3.x: %s", store.Image)
	assert.Empty(t, store.Ports, "the store is never published")
	assert.Equal(t, []string{"store"}, mapKeys(store.Networks), "only the store network reaches it")
	assert.True(t, f.Networks["store"].Internal, "the store network has no route out")
	require.NotNil(t, store.Healthcheck)
	assert.Contains(t, strings.Join(store.Healthcheck.Test, " "), "http://127.0.0.1:8333/healthz")
	assert.Contains(t, store.Command, "-s3")
	assert.Contains(t, store.Command, "-s3.config=/run/secrets/store_s3_config", "S3 asks for the workers' keys")
	assert.Equal(t, []composeVolume{{Source: "seaweedfs-data", Target: "/data"}}, store.Volumes)

	bucket := f.Services["store-bucket"]
	assert.Equal(t, store.Image, bucket.Image)
	assert.Equal(t, "service_healthy", bucket.DependsOn["seaweedfs"].Condition)
	assert.Equal(t, "on-failure", bucket.Restart, "a one-shot job, tried again until it succeeds")
	assert.Contains(t, strings.Join(bucket.Command, "\n"), "s3.bucket.create -name $$STORE_BUCKET")
	assert.Contains(t, strings.Join(bucket.Command, "\n"), "s3.bucket.list", "idempotent: an existing bucket is kept")

	w := f.Services["worker"]
	assert.Equal(t, "service_completed_successfully", w.DependsOn["store-bucket"].Condition, "the bucket exists before a worker writes")
	assert.ElementsMatch(t, []string{"default", "store"}, mapKeys(w.Networks))
	u, err := url.Parse(w.Environment[config.EnvName(keyWorkspaceStore)])
	require.NoError(t, err)
	assert.Equal(t, "s3", u.Scheme)
	assert.Equal(t, bucket.Environment["STORE_BUCKET"], u.Host, "the workers use the bucket the job creates")
	assert.Equal(t, "seaweedfs:8333", u.Query().Get("endpoint"))
	assert.Equal(t, "/run/secrets/store_access_key", w.Environment[config.EnvName(keyWorkspaceStoreAccessKey)])
	assert.Equal(t, "/run/secrets/store_secret_key", w.Environment[config.EnvName(keyWorkspaceStoreSecretKey)])
}

func TestComposeWorkersShareNoVolume(t *testing.T) {
	w := loadCompose(t, stackFile, stackEnv...).Services["worker"]
	require.Equal(t, 2, w.Deploy.Replicas)
	for _, v := range w.Volumes {
		// A named volume or a host folder is shared by every replica.
		assert.True(t, v.Source == "" || v.Source == v.Target, "the workers share %s at %s", v.Source, v.Target)
	}
	assert.Equal(t, "/workspace", w.Environment[config.EnvName(config.KeyWorkspaceRoot)])
	assert.Equal(t, "/outputs", w.Environment[config.EnvName(config.KeyOutputsDir)], "a local cache of the store")
}

// assertStoreConfigNamesTheKeys checks that the SeaweedFS config
// init-secrets.sh wrote in secrets accepts the workers' key pair, for the
// workers' bucket only.
func assertStoreConfigNamesTheKeys(t *testing.T, secrets string) {
	t.Helper()
	read := func(name string) string {
		b, err := os.ReadFile(filepath.Join(secrets, name))
		require.NoError(t, err)
		return string(b)
	}
	access, secret := read("store_access_key"), read("store_secret_key")
	assert.Regexp(t, `^[A-Za-z0-9]{20}$`, access)
	assert.Regexp(t, `^[A-Za-z0-9]{40}$`, secret)
	var cfg struct {
		Identities []struct {
			Name        string `json:"name"`
			Credentials []struct {
				AccessKey string `json:"accessKey"`
				SecretKey string `json:"secretKey"`
			} `json:"credentials"`
			Actions []string `json:"actions"`
		} `json:"identities"`
	}
	dec := json.NewDecoder(strings.NewReader(read("store_s3_config")))
	dec.DisallowUnknownFields()
	require.NoError(t, dec.Decode(&cfg))
	require.Len(t, cfg.Identities, 1)
	id := cfg.Identities[0]
	require.Len(t, id.Credentials, 1)
	assert.Equal(t, access, id.Credentials[0].AccessKey)
	assert.Equal(t, secret, id.Credentials[0].SecretKey)
	assert.ElementsMatch(t, []string{"Read:planmode", "Write:planmode", "List:planmode"}, id.Actions,
		"the workers' bucket only, and no Admin")
}

// mapKeys returns the keys of m, in no order.
func mapKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	return out
}
