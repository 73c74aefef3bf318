package config

import (
	"testing"
	"time"

	"github.com/spf13/pflag"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/planmode/planmode/serve"
)

func TestLoadServe(t *testing.T) {
	cases := []loadCase{
		{name: "defaults: loopback", check: func(t *testing.T, c Config) {
			assert.Equal(t, Serve{Listen: "127.0.0.1:8088", MaxConnections: 2000, Heartbeat: 15 * time.Second}, c.Serve)
		}},
		{name: "environment", env: map[string]string{
			"PLANMODE_SERVE_LISTEN":         ":8088",
			"PLANMODE_SERVE_TOKENSFILE":     "/run/secrets/serve_tokens",
			"PLANMODE_SERVE_ALLOWEDORIGINS": "https://ops.example.com,http://localhost:3000",
			"PLANMODE_SERVE_MAXCONNECTIONS": "50",
			"PLANMODE_SERVE_HEARTBEAT":      "5s",
		}, check: func(t *testing.T, c Config) {
			assert.Equal(t, Serve{Listen: ":8088", TokensFile: "/run/secrets/serve_tokens",
				AllowedOrigins: []string{"https://ops.example.com", "http://localhost:3000"},
				MaxConnections: 50, Heartbeat: 5 * time.Second}, c.Serve)
		}},
		{name: "file", file: "serve:\n  listen: 10.0.0.5:9000\n  tokensFile: tokens\n  allowedOrigins: [https://a.example]\n",
			check: func(t *testing.T, c Config) {
				assert.Equal(t, "10.0.0.5:9000", c.Serve.Listen)
				assert.Equal(t, "tokens", c.Serve.TokensFile)
				assert.Equal(t, []string{"https://a.example"}, c.Serve.AllowedOrigins)
			}},
		{name: "bad listen", env: map[string]string{"PLANMODE_SERVE_LISTEN": "8088"},
			wantErr: `serve.listen "8088": want host:port`},
		{name: "any origin is no origin", env: map[string]string{"PLANMODE_SERVE_ALLOWEDORIGINS": "*"},
			wantErr: `serve.allowedOrigins: "*" is not an origin`},
		{name: "origin with a path", env: map[string]string{"PLANMODE_SERVE_ALLOWEDORIGINS": "https://a.example/ui"},
			wantErr: `serve.allowedOrigins: "https://a.example/ui" is not an origin`},
		{name: "no connections", env: map[string]string{"PLANMODE_SERVE_MAXCONNECTIONS": "-1"},
			wantErr: "serve.maxConnections must be positive"},
		{name: "no heartbeat", env: map[string]string{"PLANMODE_SERVE_HEARTBEAT": "0s"},
			wantErr: "serve.heartbeat must be positive"},
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

// TestServeFlagsSetTheServeKeys: serve's --listen is serve.listen, while
// codec-server's flag of the same name stays codec.listen.
func TestServeFlagsSetTheServeKeys(t *testing.T) {
	_, err := load(t, loadCase{}) // a clean environment
	require.NoError(t, err)
	fs := pflag.NewFlagSet("serve", pflag.ContinueOnError)
	AddTemporalFlags(fs)
	AddServeFlags(fs)
	require.NoError(t, fs.Parse([]string{"--listen", "127.0.0.1:9999", "--tokens-file", "/tmp/tokens"}))
	c, err := FromFlags(fs)
	require.NoError(t, err)
	assert.Equal(t, "127.0.0.1:9999", c.Serve.Listen)
	assert.Equal(t, "/tmp/tokens", c.Serve.TokensFile)
	assert.Equal(t, DefaultCodecListen, c.Codec.Listen)
}

// TestServeDefaultsAreTheServers keeps the defaults spelt here those of
// the serve package.
func TestServeDefaultsAreTheServers(t *testing.T) {
	assert.Equal(t, serve.DefaultListen, DefaultServeListen)
	assert.Equal(t, serve.DefaultMaxConnections, DefaultServeMaxConnections)
	assert.Equal(t, serve.DefaultHeartbeat, DefaultServeHeartbeat)
}
