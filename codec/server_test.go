package codec

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	commonpb "go.temporal.io/api/common/v1"
	"go.temporal.io/sdk/converter"
)

const uiOrigin = "http://localhost:8233"

// serve starts a codec server for c on loopback.
func serve(t *testing.T, c *Codec, opts ServerOptions) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(NewHTTPHandler(c, opts))
	t.Cleanup(srv.Close)
	return srv
}

// TestRemoteCodecRoundTrip talks to the server as the SDK's remote codec
// (what `temporal --codec-endpoint` and the Web UI speak) does.
func TestRemoteCodecRoundTrip(t *testing.T) {
	c := New(ring(t, "k1:"+newKey(t)))
	srv := serve(t, c, ServerOptions{AuthToken: "s3cret"})
	remote := converter.NewRemotePayloadCodec(converter.RemotePayloadCodecOptions{
		Endpoint: srv.URL + "/default",
		ModifyRequest: func(r *http.Request) error {
			r.Header.Set("Authorization", "Bearer s3cret")
			return nil
		},
	})
	plain := []*commonpb.Payload{{
		Metadata: map[string][]byte{converter.MetadataEncoding: []byte("json/plain")},
		Data:     []byte(`{"goal":"ship it"}`),
	}}

	enc, err := remote.Encode(plain)
	require.NoError(t, err)
	assert.Equal(t, EncodingEncrypted, string(enc[0].GetMetadata()[converter.MetadataEncoding]))
	local, err := c.Decode(enc)
	require.NoError(t, err)
	assert.Equal(t, `{"goal":"ship it"}`, string(local[0].GetData()), "the server encrypts with the worker's key")

	dec, err := remote.Decode(enc)
	require.NoError(t, err)
	assert.Equal(t, `{"goal":"ship it"}`, string(dec[0].GetData()))
	assert.Equal(t, "json/plain", string(dec[0].GetMetadata()[converter.MetadataEncoding]))
}

func TestServerRefusesWithoutToken(t *testing.T) {
	srv := serve(t, New(ring(t, "k1:"+newKey(t))), ServerOptions{AuthToken: "s3cret"})
	for name, header := range map[string]string{"none": "", "wrong": "Bearer nope", "basic": "Basic s3cret"} {
		t.Run(name, func(t *testing.T) {
			req, err := http.NewRequest(http.MethodPost, srv.URL+"/decode", strings.NewReader(`{"payloads":[]}`))
			require.NoError(t, err)
			if header != "" {
				req.Header.Set("Authorization", header)
			}
			resp, err := srv.Client().Do(req)
			require.NoError(t, err)
			resp.Body.Close()
			assert.Equal(t, http.StatusUnauthorized, resp.StatusCode)
			assert.Contains(t, resp.Header.Get("WWW-Authenticate"), "Bearer")
		})
	}
}

func TestServerAnswersPreflightForAllowedOrigins(t *testing.T) {
	srv := serve(t, New(ring(t, "k1:"+newKey(t))), ServerOptions{CORSOrigins: []string{uiOrigin}, AuthToken: "s3cret"})
	preflight := func(origin string) *http.Response {
		req, err := http.NewRequest(http.MethodOptions, srv.URL+"/default/decode", nil)
		require.NoError(t, err)
		req.Header.Set("Origin", origin)
		req.Header.Set("Access-Control-Request-Method", "POST")
		req.Header.Set("Access-Control-Request-Headers", "content-type,x-namespace,authorization")
		resp, err := srv.Client().Do(req)
		require.NoError(t, err)
		resp.Body.Close()
		return resp
	}

	ok := preflight(uiOrigin)
	assert.Equal(t, http.StatusNoContent, ok.StatusCode, "preflight carries no token")
	assert.Equal(t, uiOrigin, ok.Header.Get("Access-Control-Allow-Origin"))
	assert.Equal(t, "true", ok.Header.Get("Access-Control-Allow-Credentials"))
	assert.Contains(t, ok.Header.Get("Access-Control-Allow-Methods"), "POST")
	for _, h := range []string{"Content-Type", "X-Namespace", "Authorization"} {
		assert.Contains(t, ok.Header.Get("Access-Control-Allow-Headers"), h)
	}

	other := preflight("http://evil.example")
	assert.Empty(t, other.Header.Get("Access-Control-Allow-Origin"), "an origin not listed gets no CORS grant")
}

func TestServerCORSOnAnswers(t *testing.T) {
	srv := serve(t, New(ring(t, "k1:"+newKey(t))), ServerOptions{CORSOrigins: []string{"*"}})
	req, err := http.NewRequest(http.MethodPost, srv.URL+"/decode", strings.NewReader(`{"payloads":[]}`))
	require.NoError(t, err)
	req.Header.Set("Origin", uiOrigin)
	req.Header.Set("Content-Type", "application/json")
	resp, err := srv.Client().Do(req)
	require.NoError(t, err)
	resp.Body.Close()
	assert.Equal(t, http.StatusOK, resp.StatusCode)
	assert.Equal(t, uiOrigin, resp.Header.Get("Access-Control-Allow-Origin"), "a wildcard echoes the origin, as credentials require")
}

func TestServerRefusesOtherRequests(t *testing.T) {
	srv := serve(t, New(ring(t, "k1:"+newKey(t))), ServerOptions{})
	resp, err := srv.Client().Get(srv.URL + "/decode")
	require.NoError(t, err)
	resp.Body.Close()
	assert.Equal(t, http.StatusMethodNotAllowed, resp.StatusCode)

	resp, err = srv.Client().Post(srv.URL+"/other", "application/json", strings.NewReader(`{"payloads":[]}`))
	require.NoError(t, err)
	resp.Body.Close()
	assert.Equal(t, http.StatusNotFound, resp.StatusCode)

	big := strings.NewReader(`{"payloads":[{"data":"` + strings.Repeat("A", MaxRequestBytes) + `"}]}`)
	resp, err = srv.Client().Post(srv.URL+"/decode", "application/json", big)
	require.NoError(t, err)
	resp.Body.Close()
	assert.Equal(t, http.StatusBadRequest, resp.StatusCode, "a body over the bound is refused")
}
