package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/planmode/planmode/plan"
)

// historyFile writes content to a file in a temporary folder and returns
// its path.
func historyFile(t *testing.T, content string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "chat.json")
	require.NoError(t, os.WriteFile(path, []byte(content), 0o644))
	return path
}

func TestStartHistoryFileMapsOntoTheRequest(t *testing.T) {
	path := historyFile(t, `[
  {"role": "system", "content": "You help with the shop."},
  {"role": "user", "content": "The cart total ignores discounts."},
  {"role": "assistant", "content": "Shall I plan a fix?"}
]`)
	req, err := parseStart(t, "--history", path).request("Plan the fix")
	require.NoError(t, err)
	assert.Equal(t, []plan.Message{
		{Role: plan.MessageSystem, Content: "You help with the shop."},
		{Role: plan.MessageUser, Content: "The cart total ignores discounts."},
		{Role: plan.MessageAssistant, Content: "Shall I plan a fix?"},
	}, req.Request().History)
}

func TestStartHistoryFileRejectsBadInput(t *testing.T) {
	many := "[" + strings.TrimSuffix(strings.Repeat(`{"role":"user","content":"hi"},`, 51), ",") + "]"
	cases := []struct {
		name    string
		content string
		wantErr string
	}{
		{"not an array", `{"role":"user","content":"hi"}`, `want a JSON array of {"role", "content"} messages`},
		{"misspelt key", `[{"role":"user","text":"hi"}]`, `unknown field "text"`},
		{"trailing data", `[] []`, "unexpected data after the JSON array"},
		{"unknown role", `[{"role":"bot","content":"hi"}]`, `history[0].role "bot": want user, assistant or system`},
		{"empty content", `[{"role":"user","content":""}]`, "history[0].content is empty"},
		{"too many", many, "history has 51 messages: at most 50"},
		{"too large", `[{"role":"user","content":"` + strings.Repeat("x", 33<<10) + `"}]`, "at most 32768 (32 KiB)"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := parseStart(t, "--history", historyFile(t, tc.content)).request("g")
			require.ErrorContains(t, err, tc.wantErr)
			assert.Equal(t, exitRejected, exitCode(err))
		})
	}
	t.Run("missing file", func(t *testing.T) {
		_, err := parseStart(t, "--history", filepath.Join(t.TempDir(), "nope.json")).request("g")
		require.ErrorContains(t, err, "--history")
		assert.Equal(t, exitRejected, exitCode(err))
	})
	t.Run("huge file", func(t *testing.T) {
		_, err := parseStart(t, "--history", historyFile(t, strings.Repeat(" ", maxHistoryFile+1))).request("g")
		require.ErrorContains(t, err, "larger than 1 MiB")
	})
}
