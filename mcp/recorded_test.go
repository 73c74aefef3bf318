package mcp

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A plan calls the tools of the catalogue it recorded, and inspects only
// the read-only ones of it: under another catalogue the names may mean
// other tools now.
func TestACallNamesTheRecordedCatalogue(t *testing.T) {
	c := newCatalogue([]Tool{{Name: "mcp__s__read", ReadOnly: true}, {Name: "mcp__s__write"}}, nil)

	tool, err := c.Recorded(c.Digest, "mcp__s__write")
	require.NoError(t, err)
	assert.Equal(t, "mcp__s__write", tool.Name)
	for _, tt := range []struct {
		digest, name, says string
		kind               error
	}{
		{"", "mcp__s__read", "without the catalogue digest", ErrUnknownTool},
		{"sha256:other", "mcp__s__read", "the MCP tools changed since the plan listed them", ErrCatalogueChanged},
		{c.Digest, "mcp__s__gone", "unknown MCP tool mcp__s__gone", ErrUnknownTool},
	} {
		_, err := c.Recorded(tt.digest, tt.name)
		assert.True(t, errors.Is(err, tt.kind), "%v", err)
		assert.Contains(t, err.Error(), tt.says)
	}

	assert.Equal(t, []Tool{c.Tools[0]}, c.ReadOnly(c.Digest, []string{"mcp__s__read", "mcp__s__write", "mcp__s__gone"}))
	assert.Empty(t, c.ReadOnly("sha256:other", []string{"mcp__s__read"}))
}

// An answer is bounded for history: text to its head and tail, structured
// content kept only when it fits.
func TestBoundCutsWhatHistoryCannotHold(t *testing.T) {
	small := Bound(Result{Text: "ok", Structured: json.RawMessage(`{"a":1}`), IsError: true}, 100)
	assert.Equal(t, CallOutput{Output: "ok", Structured: json.RawMessage(`{"a":1}`), IsError: true}, small)

	big := Bound(Result{Text: strings.Repeat("x", 1000), Structured: json.RawMessage(`"` + strings.Repeat("y", 200) + `"`)}, 100)
	assert.True(t, big.OutputTruncated)
	assert.LessOrEqual(t, len(big.Output), 200)
	assert.True(t, big.StructuredOmitted)
	assert.Nil(t, big.Structured)
}
