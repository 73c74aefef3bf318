package config

import (
	"crypto/rand"
	"encoding/base64"
	"os"
	"path/filepath"
	"testing"

	"github.com/spf13/pflag"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/converter"

	"github.com/planmode/planmode/codec"
)

// writeKeyFile writes a key file with one random key under id and returns
// its path.
func writeKeyFile(t *testing.T, id string) string {
	t.Helper()
	k := make([]byte, codec.KeySize)
	_, err := rand.Read(k)
	require.NoError(t, err)
	path := filepath.Join(t.TempDir(), "keys")
	require.NoError(t, os.WriteFile(path, []byte(id+":"+base64.StdEncoding.EncodeToString(k)+"\n"), 0o600))
	return path
}

func TestLoadOperations(t *testing.T) {
	cases := []loadCase{
		{name: "defaults: all off", check: func(t *testing.T, c Config) {
			assert.False(t, c.Codec.Enabled())
			assert.Equal(t, DefaultCORSOrigins(), c.Codec.CORSOrigins)
			assert.Equal(t, DefaultCodecListen, c.Codec.Listen)
			assert.Empty(t, c.Metrics.Address)
			assert.Empty(t, c.Tracing.OTLPEndpoint)
			assert.Equal(t, OTLPGRPC, c.Tracing.OTLPProtocol)
			assert.Equal(t, DefaultServiceName, c.Tracing.ServiceName)
		}},
		{name: "environment", env: map[string]string{
			"PLANMODE_CODEC_KEYFILE":        "/run/secrets/keys",
			"PLANMODE_CODEC_CORSORIGINS":    "http://ui.internal:8080,https://ui.example",
			"PLANMODE_CODEC_AUTHTOKEN":      "t0k",
			"PLANMODE_METRICS_ADDRESS":      ":9090",
			"PLANMODE_TRACING_OTLPENDPOINT": "http://127.0.0.1:4318",
			"PLANMODE_TRACING_OTLPPROTOCOL": "http",
			"PLANMODE_TRACING_SERVICENAME":  "planmode-worker",
		}, check: func(t *testing.T, c Config) {
			assert.Equal(t, "/run/secrets/keys", c.Codec.KeyFile)
			assert.Equal(t, []string{"http://ui.internal:8080", "https://ui.example"}, c.Codec.CORSOrigins)
			assert.Equal(t, "t0k", c.Codec.AuthToken)
			assert.Equal(t, ":9090", c.Metrics.Address)
			assert.Equal(t, Tracing{OTLPEndpoint: "http://127.0.0.1:4318", OTLPProtocol: OTLPHTTP, ServiceName: "planmode-worker"}, c.Tracing)
		}},
		{name: "file", file: "codec:\n  keyFile: k\n  corsOrigins: ['*']\n  listen: 0.0.0.0:8081\nmetrics:\n  address: 127.0.0.1:0\n",
			check: func(t *testing.T, c Config) {
				assert.Equal(t, "k", c.Codec.KeyFile)
				assert.Equal(t, []string{"*"}, c.Codec.CORSOrigins)
				assert.Equal(t, "0.0.0.0:8081", c.Codec.Listen)
				assert.Equal(t, "127.0.0.1:0", c.Metrics.Address)
			}},
		{name: "token twice", env: map[string]string{"PLANMODE_CODEC_AUTHTOKEN": "a", "PLANMODE_CODEC_AUTHTOKENFILE": "/f"},
			wantErr: "codec.authToken and codec.authTokenFile: set one or neither"},
		{name: "origin with a path", env: map[string]string{"PLANMODE_CODEC_CORSORIGINS": "http://localhost:8233/ui"},
			wantErr: `codec.corsOrigins: "http://localhost:8233/ui" is not an origin`},
		{name: "bad metrics address", env: map[string]string{"PLANMODE_METRICS_ADDRESS": "9090"},
			wantErr: `metrics.address "9090": want host:port`},
		{name: "endpoint without scheme", env: map[string]string{"PLANMODE_TRACING_OTLPENDPOINT": "collector:4317"},
			wantErr: `tracing.otlpEndpoint "collector:4317": want a URL`},
		{name: "bad protocol", env: map[string]string{"PLANMODE_TRACING_OTLPPROTOCOL": "udp"},
			wantErr: `tracing.otlpProtocol "udp": want grpc or http`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c, err := load(t, tc)
			if tc.wantErr != "" {
				require.ErrorContains(t, err, tc.wantErr)
				return
			}
			require.NoError(t, err)
			tc.check(t, c)
		})
	}
}

func TestListenFlagSetsTheCodecServerAddress(t *testing.T) {
	_, err := load(t, loadCase{}) // a clean environment
	require.NoError(t, err)
	fs := pflag.NewFlagSet("codec-server", pflag.ContinueOnError)
	AddTemporalFlags(fs)
	fs.String(FlagListen, "", "")
	require.NoError(t, fs.Parse([]string{"--listen", "127.0.0.1:9999"}))
	c, err := FromFlags(fs)
	require.NoError(t, err)
	assert.Equal(t, "127.0.0.1:9999", c.Codec.Listen)
}

func TestClientOptionsEncryptWithTheKeyFile(t *testing.T) {
	plain, err := Config{Temporal: Temporal{Address: "127.0.0.1:7233", Namespace: "default"}}.ClientConfig(nil)
	require.NoError(t, err)
	assert.Nil(t, plain.DataConverter, "no key file: the SDK's default converter")

	c := Config{Temporal: Temporal{Address: "127.0.0.1:7233", Namespace: "default"},
		Codec: Codec{KeyFile: writeKeyFile(t, "k7")}}
	opts, err := c.ClientConfig(nil)
	require.NoError(t, err)
	require.NotNil(t, opts.DataConverter)
	assert.Equal(t, "127.0.0.1:7233", opts.HostPort)
	p, err := opts.DataConverter.ToPayload("Add JWT authentication")
	require.NoError(t, err)
	assert.Equal(t, codec.EncodingEncrypted, string(p.GetMetadata()[converter.MetadataEncoding]))
	assert.Equal(t, "k7", string(p.GetMetadata()[codec.MetadataKeyID]))
	var back string
	require.NoError(t, opts.DataConverter.FromPayload(p, &back))
	assert.Equal(t, "Add JWT authentication", back)
}

func TestClientOptionsNameABadKeyFile(t *testing.T) {
	bad := filepath.Join(t.TempDir(), "keys")
	require.NoError(t, os.WriteFile(bad, []byte("# keys\nk1:c2hvcnQ=\n"), 0o600))
	_, err := Config{Codec: Codec{KeyFile: bad}}.ClientConfig(nil)
	require.ErrorContains(t, err, "codec.keyFile: key file "+bad+": line 2:")
	assert.NotContains(t, err.Error(), "c2hvcnQ")

	_, err = Config{Codec: Codec{KeyFile: bad + ".missing"}}.ClientConfig(nil)
	require.ErrorContains(t, err, "codec.keyFile")
}

func TestCodecToken(t *testing.T) {
	tok, err := Codec{AuthToken: "inline"}.Token()
	require.NoError(t, err)
	assert.Equal(t, "inline", tok)

	path := filepath.Join(t.TempDir(), "token")
	require.NoError(t, os.WriteFile(path, []byte("from-file\n"), 0o600))
	tok, err = Codec{AuthTokenFile: path}.Token()
	require.NoError(t, err)
	assert.Equal(t, "from-file", tok, "the trailing newline of a mounted secret is dropped")

	require.NoError(t, os.WriteFile(path, []byte("\n"), 0o600))
	_, err = Codec{AuthTokenFile: path}.Token()
	require.ErrorContains(t, err, "is empty")
}
