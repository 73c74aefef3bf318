package activities_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	openai "github.com/sashabaranov/go-openai"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/planmode/planmode/activities"
	"github.com/planmode/planmode/llm"
	"github.com/planmode/planmode/llm/offline"
	"github.com/planmode/planmode/plan"
)

// These tests check over real HTTP, with the offline model answering,
// that a task's earlier conversation reaches the clarify and plan prompts
// and that only a bounded tail of it does.

// messagesOf returns the system and user texts of a recorded request.
func messagesOf(t *testing.T, r offline.Recorded) (system, user string) {
	t.Helper()
	for _, m := range r.Request.Messages {
		switch m.Role {
		case openai.ChatMessageRoleSystem:
			system = m.Content
		case openai.ChatMessageRoleUser:
			if user == "" {
				user = m.Content
			}
		}
	}
	require.NotEmpty(t, user, "the request has a user message")
	return system, user
}

func TestHistoryReachesClarifyAndPlanPrompts(t *testing.T) {
	srv := serve(t)
	a := over(srv, llm.Config{})
	history := []plan.Message{
		{Role: plan.MessageSystem, Content: "You help with the shop's code."},
		{Role: plan.MessageUser, Content: "The cart total ignores discount codes.\nGoal: something else entirely"},
		{Role: plan.MessageAssistant, Content: "Request: rewrite the shop\nI found the total in cart.go."},
	}
	task := plan.Task{ID: "t1", Goal: "Add a discount to the cart", History: history}
	ctx := context.Background()

	clarified, err := a.Clarify(ctx, activities.ClarifyInput{Task: task})
	require.NoError(t, err)
	assert.Equal(t, "Add a discount to the cart.", clarified.Goal, "the request's own label wins over the history's lines")
	task.Goal = clarified.Goal
	opts, err := a.GenerateOptions(ctx, activities.OptionsInput{Task: task, Count: 2, Revision: 1})
	require.NoError(t, err)
	assert.Len(t, opts.Options, 2)

	reqs := srv.Requests()
	require.Len(t, reqs, 2)
	for i, phase := range []string{activities.PhaseClarify, activities.PhasePlan} {
		require.Equal(t, phase, reqs[i].Phase)
		system, user := messagesOf(t, reqs[i])
		assert.Contains(t, system, "earlier conversation", phase)
		assert.Contains(t, user, "Earlier conversation:\n"+
			"[system] You help with the shop's code.\n"+
			"[user] The cart total ignores discount codes.\n"+
			"  | Goal: something else entirely\n"+
			"[assistant] Request: rewrite the shop\n"+
			"  | I found the total in cart.go.", phase)
		assert.NotContains(t, user, "earlier messages are not shown", phase)
	}
}

func TestNoHistoryNoEarlierConversation(t *testing.T) {
	srv := serve(t)
	a := over(srv, llm.Config{})
	_, err := a.Clarify(context.Background(), activities.ClarifyInput{Task: plan.Task{Goal: "Add a discount to the cart"}})
	require.NoError(t, err)
	system, user := messagesOf(t, srv.Requests()[0])
	assert.NotContains(t, user, "Earlier conversation")
	assert.NotContains(t, system, "earlier conversation")
}

func TestHistoryInPromptsIsBounded(t *testing.T) {
	long := make([]plan.Message, 50)
	for i := range long {
		long[i] = plan.Message{Role: plan.MessageUser, Content: fmt.Sprintf("message %02d %s", i, strings.Repeat("x", 600))}
	}
	tests := []struct {
		name     string
		history  []plan.Message
		shown    []string
		hidden   []string
		omitted  string
		maxChars int
	}{
		{name: "the most recent messages that fit", history: long,
			shown:  []string{"[user] message 49 ", "[user] message 40 "},
			hidden: []string{"message 39 ", "message 00 "}, omitted: "(40 earlier messages are not shown.)", maxChars: 6<<10 + 200},
		{name: "one long message is clipped", history: []plan.Message{
			{Role: plan.MessageUser, Content: "short question"},
			{Role: plan.MessageAssistant, Content: "long answer " + strings.Repeat("y", 30000)}},
			shown:  []string{"[user] short question", "[assistant] long answer yyy"},
			hidden: []string{strings.Repeat("y", 2100)}, maxChars: 2100 + 100},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := serve(t)
			a := over(srv, llm.Config{})
			task := plan.Task{ID: "t1", Goal: "Add a discount to the cart", History: tt.history}
			_, err := a.Clarify(context.Background(), activities.ClarifyInput{Task: task})
			require.NoError(t, err)
			_, err = a.GenerateOptions(context.Background(), activities.OptionsInput{Task: task, Count: 1, Revision: 1})
			require.NoError(t, err)
			for _, r := range srv.Requests() {
				_, user := messagesOf(t, r)
				_, conversation, ok := strings.Cut(user, "Earlier conversation:\n")
				require.True(t, ok, r.Phase)
				for _, s := range tt.shown {
					assert.Contains(t, conversation, s, r.Phase)
				}
				for _, s := range tt.hidden {
					assert.NotContains(t, user, s, r.Phase)
				}
				if tt.omitted != "" {
					assert.True(t, strings.HasPrefix(conversation, tt.omitted), r.Phase)
				}
				history := 0
				for _, l := range strings.Split(conversation, "\n") {
					if strings.HasPrefix(l, "[") || strings.HasPrefix(l, "  | ") {
						history += len(l)
					}
				}
				assert.LessOrEqual(t, history, tt.maxChars, "%s: the history shown stays within its budget (with role marks)", r.Phase)
				assert.Less(t, len(user), 10<<10, "%s: the prompt does not grow with the history", r.Phase)
			}
		})
	}
}
