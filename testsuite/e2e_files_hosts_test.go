package testsuite

import (
	"fmt"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/johannesboyne/gofakes3"
	"github.com/johannesboyne/gofakes3/backend/s3mem"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/planmode/planmode/internal/config"
	"github.com/planmode/planmode/plan"
	"github.com/planmode/planmode/planclient"
	"github.com/planmode/planmode/signals"
	"github.com/planmode/planmode/worker/planworker"
)

// startS3 serves an in-memory S3 on loopback with bucket, and returns the
// workspace.store URL of prefix in it.
func startS3(t *testing.T, bucket, prefix string) string {
	t.Helper()
	backend := s3mem.New()
	require.NoError(t, backend.CreateBucket(bucket))
	srv := httptest.NewServer(gofakes3.New(backend).Server())
	t.Cleanup(srv.Close)
	return fmt.Sprintf("s3://%s/%s?endpoint=%s&insecure=true", bucket, prefix, strings.TrimPrefix(srv.URL, "http://"))
}

// TestTwoWorkersOnSeparateRootsFinishOnePlan runs one plan on two worker
// processes that share nothing but a bucket: separate workspace roots,
// separate caches. The first writes some files and is killed with SIGKILL
// mid-plan; the second, whose root never held the plan's folder, brings it
// back from the bucket and finishes: every file is right, in its folder
// and in the files the result names.
func TestTwoWorkersOnSeparateRootsFinishOnePlan(t *testing.T) {
	t.Parallel()
	store := startS3(t, "planmode", "fleet")
	keys := t.TempDir()
	access, secret := filepath.Join(keys, "access"), filepath.Join(keys, "secret")
	require.NoError(t, os.WriteFile(access, []byte("fleet-access\n"), 0o600))
	require.NoError(t, os.WriteFile(secret, []byte("fleet-secret\n"), 0o600))
	settings := map[string]string{
		config.KeyOfflineLatency: callLatency, config.KeyStickyTimeout: "1s",
		config.KeyStore: store, config.KeyStoreAccessKeyFile: access, config.KeyStoreSecretKeyFile: secret,
	}
	srv, bin, envA, queue, _ := workerRig(t, settings)
	rootB := t.TempDir()
	settings[config.KeyAddress], settings[config.KeyNamespace] = srv.Address(), srv.Namespace
	settings[config.KeyTaskQueue], settings[config.KeyWorkspaceRoot] = queue, rootB
	settings[config.KeyLLMOffline] = "true"
	envB := workerEnv(t, settings)
	first := startWorkerProcess(t, bin, envA)

	ctx, cancel := testContext(t)
	defer cancel()
	pc := planclient.New(srv.Client, planclient.WithTaskQueue(queue))
	id := "plan-hosts-" + queue
	var steps []plan.Step
	want := map[string]string{}
	for i := 1; i <= 6; i++ {
		var deps []string
		if i > 1 {
			deps = []string{fmt.Sprintf("s%d", i-1)}
		}
		path, content := fmt.Sprintf("dir/f%d.txt", i), fmt.Sprintf("file %d\n", i)
		steps = append(steps, write(fmt.Sprintf("s%d", i), path, content, deps...))
		want[path] = content
	}
	_, err := pc.Start(ctx, id, signals.StartRequest{Goal: "write six files", Plan: &signals.ExternalPlan{Steps: steps},
		Execution: signals.ExecutionPolicy{HeartbeatTimeout: plan.Duration(failoverHeartbeat)}})
	require.NoError(t, err)
	require.Eventually(t, func() bool {
		p, err := pc.Progress(ctx, id)
		return err == nil && p.Totals.Completed >= 2
	}, loadedWait, 10*time.Millisecond, "two steps complete on the first worker")
	first.kill()
	require.True(t, errKilled(first.err), "the first worker died of SIGKILL: %v", first.err)
	second := startWorkerProcess(t, bin, envB)

	res, err := pc.Result(ctx, id)
	require.NoError(t, err, "second worker:\n%s", second.out)
	require.Equal(t, signals.StatusCompleted, res.Status, res.Error)

	folderB := filepath.Join(rootB, plan.DefaultWorkspace(id))
	assert.Equal(t, want, folderContent(t, folderB), "the second worker's folder holds every file, the first's included")
	files, err := planworker.Files(config.Workspace{Store: store, StoreAccessKeyFile: access, StoreSecretKeyFile: secret})
	require.NoError(t, err)
	files.StateDir = t.TempDir()
	assert.Equal(t, want, manifestContent(ctx, t, files, res.Manifest), "the files the result names")
	folderA := filepath.Join(envValue(envA, config.KeyWorkspaceRoot), plan.DefaultWorkspace(id))
	assert.NotContains(t, folderContent(t, folderA), "dir/f6.txt", "the first worker's root never saw the last step")
}

// envValue returns the value env gives config key key.
func envValue(env []string, key string) string {
	prefix := config.EnvName(key) + "="
	for _, kv := range env {
		if v, ok := strings.CutPrefix(kv, prefix); ok {
			return v
		}
	}
	return ""
}
