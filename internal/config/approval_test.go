package config

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/planmode/planmode/plan"
	"github.com/planmode/planmode/signals"
)

func TestApprovalDefaults(t *testing.T) {
	c, err := load(t, loadCase{})
	require.NoError(t, err)
	assert.Empty(t, c.Approval.Rules)
	assert.Equal(t, time.Hour, c.Approval.RemindAfter)
	assert.Equal(t, 24*time.Hour, c.Approval.Timeout)
	assert.Equal(t, "deny", c.Approval.OnTimeout)
	assert.Equal(t, signals.ApprovalPolicy{Timeout: plan.Duration(24 * time.Hour), RemindAfter: plan.Duration(time.Hour),
		OnTimeout: signals.ApprovalTimeoutDeny}, c.Approval.Policy())
}

func TestApprovalRulesFromTheFile(t *testing.T) {
	c, err := load(t, loadCase{file: `
approval:
  rules:
    - {match: "mcp__github__get_*", action: allow}
    - {match: "mcp__github__*", action: ask}
    - match: run_command
      args: {command: git, args: "push*"}
      action: ask
  timeout: 2h
  remindAfter: 15m
  onTimeout: pause
`})
	require.NoError(t, err)
	want := plan.ApprovalRules{
		{Match: "mcp__github__get_*", Action: plan.ApprovalAllow},
		{Match: "mcp__github__*", Action: plan.ApprovalAsk},
		{Match: "run_command", Args: map[string]string{"command": "git", "args": "push*"}, Action: plan.ApprovalAsk},
	}
	assert.Equal(t, want, c.Approval.Rules)
	assert.Equal(t, signals.ApprovalTimeoutPause, c.Approval.Policy().OnTimeout)
	assert.Equal(t, plan.Duration(15*time.Minute), c.Approval.Policy().RemindAfter)
}

func TestApprovalRefusesBadSettings(t *testing.T) {
	for _, tc := range []loadCase{
		{name: "bad glob names the rule", file: "approval:\n  rules:\n    - {match: run_command, action: ask}\n    - {match: 'mcp__x__\\', action: deny}\n",
			wantErr: `approval.rules: rule 2 ("mcp__x__\\"): match "mcp__x__\\" ends in a lone backslash`},
		{name: "unknown action", file: "approval:\n  rules:\n    - {match: write_file, action: maybe}\n",
			wantErr: `rule 1 ("write_file"): action "maybe"`},
		{name: "zero timeout", env: map[string]string{"PLANMODE_APPROVAL_TIMEOUT": "0s"},
			wantErr: "approval.timeout 0s: want more than 0"},
		{name: "reminder after timeout", env: map[string]string{"PLANMODE_APPROVAL_TIMEOUT": "1h", "PLANMODE_APPROVAL_REMINDAFTER": "2h"},
			wantErr: "approval.remindAfter 2h0m0s: want 0 (no reminder) or less than approval.timeout 1h0m0s"},
		{name: "unknown outcome", env: map[string]string{"PLANMODE_APPROVAL_ONTIMEOUT": "approve"},
			wantErr: `approval.onTimeout "approve": want deny, fail-step, pause or fail-plan`},
		// A misspelt args on an allow rule would allow every call of the
		// tool: it is refused, not ignored.
		{name: "misspelt args", file: "approval:\n  rules:\n    - {match: run_command, arg: {command: ls}, action: allow}\n",
			wantErr: "approval.rules (rules count from [0]): '[0]' has invalid keys: arg"},
		{name: "not a list", file: "approval:\n  rules: {match: x, action: ask}\n", wantErr: "approval.rules"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := load(t, tc)
			require.Error(t, err)
			assert.Contains(t, err.Error(), tc.wantErr)
		})
	}
}
