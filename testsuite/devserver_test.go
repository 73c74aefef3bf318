package testsuite

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.temporal.io/api/enums/v1"
	"go.temporal.io/api/operatorservice/v1"
	"go.temporal.io/sdk/client"

	"github.com/planmode/planmode/internal/devserver"
	"github.com/planmode/planmode/signals"
)

func TestStartDevServerIsSharedAndReady(t *testing.T) {
	srv := StartDevServer(t)
	again := StartDevServer(t)
	assert.Same(t, srv, again, "one server per test binary under Main")
	assert.True(t, strings.HasPrefix(srv.Address(), "127.0.0.1:"), srv.Address())
	assert.Equal(t, devserver.DefaultNamespace, srv.Namespace)

	ctx, cancel := testContext(t)
	defer cancel()
	_, err := srv.Client.CheckHealth(ctx, &client.CheckHealthRequest{})
	require.NoError(t, err)

	resp, err := srv.Client.OperatorService().ListSearchAttributes(ctx,
		&operatorservice.ListSearchAttributesRequest{Namespace: srv.Namespace})
	require.NoError(t, err)
	want := map[string]enums.IndexedValueType{
		signals.PhaseAttr.GetName():    enums.INDEXED_VALUE_TYPE_KEYWORD,
		signals.AwaitingAttr.GetName(): enums.INDEXED_VALUE_TYPE_KEYWORD,
		signals.ProgressAttr.GetName(): enums.INDEXED_VALUE_TYPE_INT,
	}
	for name, typ := range want {
		assert.Equal(t, typ, resp.GetCustomAttributes()[name], name)
	}
}

func TestDevServerServesTheUI(t *testing.T) {
	srv := StartDevServer(t)
	require.True(t, strings.HasPrefix(srv.UIAddress(), "http://127.0.0.1:"), srv.UIAddress())
	require.Eventually(t, func() bool {
		resp, err := http.Get(srv.UIAddress())
		if err != nil {
			return false
		}
		_ = resp.Body.Close()
		return resp.StatusCode == http.StatusOK
	}, loadedWait, 100*time.Millisecond)
}

func TestTaskQueueIsUnique(t *testing.T) {
	a, b := TaskQueue(t), TaskQueue(t)
	assert.NotEqual(t, a, b)
	assert.True(t, strings.HasPrefix(a, "TestTaskQueueIsUnique-"), a)
}

func TestStartAndStopAPrivateServer(t *testing.T) {
	ctx, cancel := testContext(t)
	defer cancel()
	srv, err := devserver.Start(ctx, devserver.Config{})
	require.NoError(t, err)
	assert.NotEqual(t, StartDevServer(t).Address(), srv.Address())
	_, err = srv.Client.CheckHealth(ctx, &client.CheckHealthRequest{})
	require.NoError(t, err)

	require.NoError(t, srv.Stop())
	require.NoError(t, srv.Stop(), "stopping twice is harmless")
	_, err = client.Dial(client.Options{HostPort: srv.Address(), ConnectionOptions: client.ConnectionOptions{}})
	assert.Error(t, err, "the server is gone")
}
