package planclient

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"github.com/planmode/planmode/plan"
	"github.com/planmode/planmode/signals"
)

func TestStaticDetailsRendersRequestWithDefaults(t *testing.T) {
	got := StaticDetails(signals.StartRequest{
		Goal:         "Add JWT authentication",
		Requirements: []string{"email/password login", "refresh\ntokens"},
		Constraints:  []string{"no new services"},
		Workspace:    "/srv/repos/shop",
		Template:     "feature",
	})
	for _, want := range []string{
		"**Goal:** Add JWT authentication\n",
		"**Requirements**\n\n- email/password login\n- refresh tokens\n",
		"**Constraints**\n\n- no new services\n",
		"- **Workspace:** `/srv/repos/shop`\n",
		"- **Priority:** medium\n",
		"- **Options:** 3\n",
		"- **Template:** `feature`\n",
		"- **Selection:** manual, waits for ever\n",
		"- **Execution:** balanced, skip confidence threshold 0.80, at most 50 steps and 16 iterations per step, 4 at once\n",
		"- **Clarification:** no questions\n",
		"- **Budget:** none\n",
	} {
		assert.Contains(t, got, want)
	}
	assert.NotContains(t, got, "Extra prompts", "no prompts were given")
}

func TestStaticDetailsPolicies(t *testing.T) {
	tests := []struct {
		name string
		req  signals.StartRequest
		want []string
	}{
		{
			name: "no workspace, no lists",
			req:  signals.StartRequest{Goal: "g"},
			want: []string{"- **Workspace:** the worker's\n"},
		},
		{
			name: "timed manual selection",
			req:  signals.StartRequest{Goal: "g", Selection: signals.SelectionPolicy{Timeout: plan.Duration(24 * time.Hour), OnTimeout: signals.OnTimeoutCancel}},
			want: []string{"- **Selection:** manual, waits 24h0m0s, then cancel\n"},
		},
		{
			name: "auto selection",
			req:  signals.StartRequest{Goal: "g", Selection: signals.SelectionPolicy{Mode: signals.SelectAuto}},
			want: []string{"- **Selection:** auto (the recommended option at once)\n"},
		},
		{
			name: "confirm timeout",
			req: signals.StartRequest{Goal: "g", Execution: signals.ExecutionPolicy{Mode: signals.ExecEfficient, SkipConfidenceThreshold: 0.9,
				ConfirmTimeout: plan.Duration(time.Hour), OnConfirmTimeout: signals.OnTimeoutApprove, Parallelism: 2}},
			want: []string{"- **Execution:** efficient, skip confidence threshold 0.90, skip confirmations wait 1h0m0s then approve, at most 50 steps and 16 iterations per step, 2 at once\n"},
		},
		{
			name: "questions with a timeout",
			req:  signals.StartRequest{Goal: "g", Clarify: signals.ClarifyPolicy{AskQuestions: true, Timeout: plan.Duration(10 * time.Minute)}},
			want: []string{"- **Clarification:** may ask questions, waits 10m0s\n"},
		},
		{
			name: "budget",
			req:  signals.StartRequest{Goal: "g", Budget: signals.Budget{MaxTokens: 100000, MaxCostUSD: 2, OnExceed: signals.BudgetPause}},
			want: []string{"- **Budget:** 100000 tokens, $2.00, then pause\n"},
		},
		{
			name: "ranking criteria with their weights",
			req:  signals.StartRequest{Goal: "g", Ranking: []plan.Criterion{{Name: "safety", Weight: 2}, {Name: "speed"}}},
			want: []string{"- **Ranking:** safety ×2, speed ×1\n"},
		},
		{
			name: "a plan's webhook is named, its URL not shown",
			req:  signals.StartRequest{Goal: "g", Notify: signals.NotifyPolicy{WebhookURL: "https://hooks.example.com/t/secret sauce"}},
			want: []string{"- **Webhook:** the plan's own\n"},
		},
		{
			name: "prompts are named, not shown",
			req: signals.StartRequest{Goal: "g", SystemPrompt: "secret sauce",
				PhasePrompts: map[string]string{"reflecting": "be strict", "clarifying": "ask", "planning": ""}},
			want: []string{"- **Extra prompts:** system, clarifying, reflecting\n"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := StaticDetails(tt.req)
			for _, w := range tt.want {
				assert.Contains(t, got, w)
			}
			assert.NotContains(t, got, "secret sauce")
			assert.NotContains(t, got, "**Requirements**")
		})
	}
}

func TestStaticDetailsIsBounded(t *testing.T) {
	req := signals.StartRequest{Goal: "g"}
	for range 2000 {
		req.Requirements = append(req.Requirements, "a requirement that is rather long, as some are")
	}
	got := StaticDetails(req)
	assert.LessOrEqual(t, len(got), MaxStaticDetailsBytes)
	assert.True(t, strings.HasSuffix(got, "…"))
}
