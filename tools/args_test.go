package tools

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestDecodeArgs(t *testing.T) {
	type args struct {
		Path  string   `json:"path"`
		Limit int      `json:"limit,omitempty"`
		Flag  bool     `json:"flag,omitempty"`
		List  []string `json:"list,omitempty"`
	}
	tests := []struct {
		name, raw string
		want      args
		reject    string
	}{
		{name: "ok", raw: `{"path":"a","limit":3,"flag":true,"list":["x"]}`,
			want: args{Path: "a", Limit: 3, Flag: true, List: []string{"x"}}},
		{name: "empty", raw: ``},
		{name: "null", raw: ` null `},
		{name: "unknown", raw: `{"paht":"a"}`, reject: `unknown argument "paht"; expected one of: path, limit, flag, list`},
		{name: "string for int", raw: `{"limit":"3"}`, reject: `invalid argument "limit": expected an integer, got string`},
		{name: "float for int", raw: `{"limit":1.5}`, reject: `invalid argument "limit": expected an integer`},
		{name: "number for bool", raw: `{"flag":1}`, reject: `invalid argument "flag": expected a boolean, got number`},
		{name: "string for list", raw: `{"list":"x"}`, reject: `invalid argument "list": expected an array of strings`},
		{name: "array", raw: `["a"]`, reject: "expected a JSON object"},
		{name: "malformed", raw: `{"path":`, reject: "invalid arguments"},
		{name: "trailing", raw: `{"path":"a"} {}`, reject: "unexpected data after the JSON object"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got args
			err := DecodeArgs(json.RawMessage(tt.raw), &got)
			if tt.reject != "" {
				requireToolError(t, err, tt.reject)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.want, got)
		})
	}
}

func TestTruncate(t *testing.T) {
	s, cut := Truncate("short", 10)
	assert.Equal(t, "short", s)
	assert.False(t, cut)

	s, cut = Truncate("0123456789abcdefghij", 10)
	assert.True(t, cut)
	assert.Equal(t, "01234\n… [10 bytes omitted] …\nfghij", s)

	s, cut = Truncate("ééééé", 5) // 10 bytes of two-byte runes
	assert.True(t, cut)
	assert.Equal(t, "é\n… [6 bytes omitted] …\né", s, "cuts fall on rune boundaries")
	assert.Equal(t, "…bc", Tail("abc", 2))
	assert.Equal(t, "abc", Tail("abc", 5))
}
