package signals

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/planmode/planmode/plan"
)

// history returns n messages alternating user and assistant, each with
// content of size bytes.
func history(n, size int) []plan.Message {
	out := make([]plan.Message, n)
	for i := range out {
		role := plan.MessageUser
		if i%2 == 1 {
			role = plan.MessageAssistant
		}
		out[i] = plan.Message{Role: role, Content: strings.Repeat("x", size)}
	}
	return out
}

func TestHistoryValidation(t *testing.T) {
	tests := []struct {
		name    string
		history []plan.Message
		wantErr []string
	}{
		{name: "none", history: nil},
		{name: "every role", history: []plan.Message{
			{Role: plan.MessageSystem, Content: "You help with the shop."},
			{Role: plan.MessageUser, Content: "The cart total ignores discounts."},
			{Role: plan.MessageAssistant, Content: "I can plan a fix."},
		}},
		{name: "at the limits", history: history(MaxHistoryMessages, MaxHistoryBytes/MaxHistoryMessages)},
		{name: "unknown role", history: []plan.Message{{Role: "bot", Content: "hi"}},
			wantErr: []string{`history[0].role "bot": want user, assistant or system`}},
		{name: "empty content", history: []plan.Message{{Role: plan.MessageUser, Content: "ok"}, {Role: plan.MessageUser, Content: " \n"}},
			wantErr: []string{"history[1].content is empty"}},
		{name: "too many", history: history(MaxHistoryMessages+1, 1),
			wantErr: []string{"history has 51 messages: at most 50"}},
		{name: "too large", history: history(2, MaxHistoryBytes/2+1),
			wantErr: []string{"history holds 32770 bytes of content: at most 32768 (32 KiB)"}},
		{name: "all at once", history: append(history(MaxHistoryMessages, 1000), plan.Message{Role: "tool"}),
			wantErr: []string{"history has 51 messages", `history[50].role "tool"`, "history[50].content is empty", "at most 32768"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := StartRequest{Goal: "Fix the cart", History: tt.history}.Validate()
			if len(tt.wantErr) == 0 {
				require.NoError(t, err)
				return
			}
			require.Error(t, err)
			for _, want := range tt.wantErr {
				assert.Contains(t, err.Error(), want)
			}
		})
	}
}
