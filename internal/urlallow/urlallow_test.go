package urlallow

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestAllowed(t *testing.T) {
	allowed := []string{"https://hooks.example/ci", "http://127.0.0.1:9000/mcp/"}
	for target, want := range map[string]bool{
		"https://hooks.example/ci":            true,
		"HTTPS://Hooks.Example/ci":            true,
		"https://hooks.example/ci/more":       false, // the entry has no trailing slash: exact only
		"http://127.0.0.1:9000/mcp/":          true,
		"http://127.0.0.1:9000/mcp/x":         true,
		"http://127.0.0.1:9000/mcp/../admin":  false,
		"http://127.0.0.1:9000/mcpx":          false,
		"http://user:pw@127.0.0.1:9000/mcp/x": false,
		"ftp://127.0.0.1:9000/mcp/x":          false,
		"not a url":                           false,
	} {
		assert.Equal(t, want, Allowed(target, allowed), target)
	}
	assert.False(t, Allowed("https://hooks.example/ci", nil), "an empty list allows nothing")
}
