package serve_test

import (
	"context"
	"net"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/planmode/planmode/serve"
)

func TestParseTokens(t *testing.T) {
	const tok = "0123456789abcdef"
	tests := []struct {
		name, file string
		want       int
		wantErr    string
	}{
		{"empty", "", 0, ""},
		{"comments and blank lines", "# tokens\n\n   \n\t# indented comment\n", 0, ""},
		{"identity", tok + " ops\n", 1, ""},
		{"tenants", tok + "\tbot   acme,globex\n", 1, ""},
		{"two", tok + " a\n" + tok + "x b\n", 2, ""},
		{"no identity", "# x\n" + tok + "\n", 0, "line 2: 1 fields"},
		{"too many fields", tok + " a b c\n", 0, "line 1: 4 fields"},
		{"short token", "short a\n", 0, "line 1: the token of a is 5 bytes: at least 16"},
		{"empty tenant", tok + " a acme,,globex\n", 0, "line 1: the tenants of a hold an empty name"},
		{"trailing comma", tok + " a acme,\n", 0, "empty name"},
		{"duplicate token", tok + " a\n\n" + tok + " b\n", 0, "line 3: the token of line 1 again"},
		{"control character", tok + " a\x01b\n", 0, "line 1: a field holds a character that is not printable"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			toks, err := serve.ParseTokens([]byte(tt.file))
			if tt.wantErr != "" {
				require.ErrorContains(t, err, tt.wantErr)
				assert.NotContains(t, err.Error(), tok, "an error never quotes a token")
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.want, toks.Len())
		})
	}
}

func TestReadTokensNamesTheFile(t *testing.T) {
	path := writeTokens(t, t.TempDir(), "x\n")
	_, err := serve.ReadTokens(path)
	assert.ErrorContains(t, err, "tokens file "+path+": line 1")
	_, err = serve.ReadTokens(path + ".missing")
	assert.ErrorContains(t, err, "no such file")
}

func TestServeRefusesABadTokensFile(t *testing.T) {
	for name, cfg := range map[string]serve.Config{
		"none":      {},
		"malformed": {TokensFile: writeTokens(t, t.TempDir(), "short a\n")},
		"missing":   {TokensFile: t.TempDir() + "/missing"},
	} {
		t.Run(name, func(t *testing.T) {
			ln, err := net.Listen("tcp", "127.0.0.1:0")
			require.NoError(t, err)
			err = serve.New(cfg, newFakeSource()).Serve(context.Background(), ln)
			require.Error(t, err)
			assert.True(t, strings.HasPrefix(err.Error(), "serve: "), err.Error())
			_, err = net.Dial("tcp", ln.Addr().String())
			assert.Error(t, err, "the listener is closed")
		})
	}
}
