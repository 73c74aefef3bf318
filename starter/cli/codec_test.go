package cli

import (
	"bufio"
	"context"
	"crypto/rand"
	"encoding/base64"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	commonpb "go.temporal.io/api/common/v1"
	"go.temporal.io/sdk/converter"

	"github.com/planmode/planmode/codec"
	"github.com/planmode/planmode/internal/config"
	"github.com/planmode/planmode/signals"
)

// codecKeyFile writes a one-key file, points PLANMODE_CODEC_KEYFILE at
// it, clears the token variables and returns the codec of that file.
func codecKeyFile(t *testing.T) *codec.Codec {
	t.Helper()
	t.Setenv(config.EnvName(config.KeyCodecAuthToken), "")
	t.Setenv(config.EnvName(config.KeyCodecAuthTokenFile), "")
	k := make([]byte, codec.KeySize)
	_, err := rand.Read(k)
	require.NoError(t, err)
	path := filepath.Join(t.TempDir(), "keys")
	require.NoError(t, os.WriteFile(path, []byte("k1:"+base64.StdEncoding.EncodeToString(k)+"\n"), 0o600))
	t.Setenv(config.EnvName(config.KeyCodecKeyFile), path)
	keys, err := codec.LoadKeyFile(path)
	require.NoError(t, err)
	return codec.New(keys)
}

// startCodecServer runs `planmode codec-server` on a free loopback port
// and returns its URL and a function that stops it and returns its exit
// code.
func startCodecServer(t *testing.T) (string, func() int) {
	t.Helper()
	pr, pw := io.Pipe()
	d, _, _ := newTestDeps(t, "")
	d.out = pw
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	code := make(chan int, 1)
	go func() {
		code <- run(ctx, d, []string{"codec-server", "--listen", "127.0.0.1:0"})
		pw.Close()
	}()
	lines := bufio.NewScanner(pr)
	require.True(t, lines.Scan(), "the server announces itself")
	url, ok := strings.CutPrefix(lines.Text(), "codec server listening on ")
	require.True(t, ok, lines.Text())
	go func() { _, _ = io.Copy(io.Discard, pr) }()
	return url, func() int { cancel(); return <-code }
}

func TestCodecServerDecodesWhatTheWorkerEncrypts(t *testing.T) {
	worker := codecKeyFile(t)
	url, stop := startCodecServer(t)

	sealed, err := worker.Encode([]*commonpb.Payload{{
		Metadata: map[string][]byte{converter.MetadataEncoding: []byte("json/plain")},
		Data:     []byte(`{"goal":"Add JWT authentication"}`),
	}})
	require.NoError(t, err)
	remote := converter.NewRemotePayloadCodec(converter.RemotePayloadCodecOptions{Endpoint: url})
	plain, err := remote.Decode(sealed)
	require.NoError(t, err)
	assert.Equal(t, `{"goal":"Add JWT authentication"}`, string(plain[0].GetData()))

	req, err := http.NewRequest(http.MethodOptions, url+"/default/decode", nil)
	require.NoError(t, err)
	req.Header.Set("Origin", "http://localhost:8233")
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	resp.Body.Close()
	assert.Equal(t, "http://localhost:8233", resp.Header.Get("Access-Control-Allow-Origin"),
		"the dev server's Web UI is allowed by default")

	assert.Equal(t, exitOK, stop(), "an interrupt stops the server cleanly")
}

func TestCodecServerTokenFromFile(t *testing.T) {
	worker := codecKeyFile(t)
	tokenFile := filepath.Join(t.TempDir(), "token")
	require.NoError(t, os.WriteFile(tokenFile, []byte("s3cret\n"), 0o600))
	t.Setenv(config.EnvName(config.KeyCodecAuthTokenFile), tokenFile)
	url, stop := startCodecServer(t)
	defer stop()

	resp, err := http.Post(url+"/decode", "application/json", strings.NewReader(`{"payloads":[]}`))
	require.NoError(t, err)
	resp.Body.Close()
	assert.Equal(t, http.StatusUnauthorized, resp.StatusCode)

	sealed, err := worker.Encode([]*commonpb.Payload{{Data: []byte("plan")}})
	require.NoError(t, err)
	remote := converter.NewRemotePayloadCodec(converter.RemotePayloadCodecOptions{Endpoint: url,
		ModifyRequest: func(r *http.Request) error { r.Header.Set("Authorization", "Bearer s3cret"); return nil }})
	plain, err := remote.Decode(sealed)
	require.NoError(t, err)
	assert.Equal(t, "plan", string(plain[0].GetData()))
}

func TestCodecServerNeedsKeys(t *testing.T) {
	d, _, errOut := newTestDeps(t, "")
	t.Setenv(config.EnvName(config.KeyCodecKeyFile), "")
	got := run(context.Background(), d, []string{"codec-server", "--listen", "127.0.0.1:0"})
	assert.Equal(t, exitRejected, got)
	assert.Contains(t, errOut.String(), "codec-server needs keys: set codec.keyFile (PLANMODE_CODEC_KEYFILE)")
}

func TestListReadsAnEncryptedGoal(t *testing.T) {
	dc := codec.NewDataConverter(codecKeyFile(t))
	goal, err := dc.ToPayload("Add JWT authentication")
	require.NoError(t, err)
	phase, err := converter.GetDefaultDataConverter().ToPayload("executing")
	require.NoError(t, err)
	sa := &commonpb.SearchAttributes{IndexedFields: map[string]*commonpb.Payload{signals.PhaseAttr.GetName(): phase}}
	memo := &commonpb.Memo{Fields: map[string]*commonpb.Payload{signals.MemoGoal: goal}}

	s := summarize(dc, "plan-1", "run-1", "Running", sa, memo, time.Time{})
	assert.Equal(t, "Add JWT authentication", s.Goal, "the memo is read with the client's converter")
	assert.Equal(t, "executing", s.Phase, "search attributes are never encrypted")
}
