package cli

import (
	"testing"
	"time"

	"github.com/spf13/pflag"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/planmode/planmode/plan"
	"github.com/planmode/planmode/signals"
)

// parseStart parses args as the start command's flags.
func parseStart(t *testing.T, args ...string) *startFlags {
	t.Helper()
	var f startFlags
	fs := pflag.NewFlagSet("start", pflag.ContinueOnError)
	f.register(fs)
	require.NoError(t, fs.Parse(args))
	return &f
}

func TestStartFlagsMapOntoTheRequest(t *testing.T) {
	f := parseStart(t,
		"--requirement", "email/password login", "--requirement", "logout",
		"--constraint", "no new services", "--priority", "high", "--workspace", "/srv/shop",
		"--template", "bug_fix", "--options", "4", "--select", "auto", "--select-timeout", "24h",
		"--on-timeout", "cancel", "--mode", "efficient", "--skip-threshold", "0.6", "--confirm-timeout", "1h",
		"--on-confirm-timeout", "approve", "--max-steps", "12", "--parallelism", "2", "--heartbeat-timeout", "5s", "--ask-questions",
		"--max-tokens", "5000", "--max-cost", "1.5", "--system-prompt", "be brief", "--webhook", "https://hooks.example.com/plan",
		"--id", "plan-x", "--watch")
	req, err := f.request("  Add JWT authentication ")
	require.NoError(t, err)
	assert.Equal(t, signals.StartRequest{
		Goal:         "Add JWT authentication",
		Requirements: []string{"email/password login", "logout"},
		Constraints:  []string{"no new services"},
		Priority:     plan.PriorityHigh,
		Workspace:    "/srv/shop",
		Template:     "bug_fix",
		OptionCount:  4,
		Selection:    signals.SelectionPolicy{Mode: signals.SelectAuto, Timeout: plan.Duration(24 * time.Hour), OnTimeout: signals.OnTimeoutCancel},
		Execution: signals.ExecutionPolicy{Mode: signals.ExecEfficient, SkipConfidenceThreshold: 0.6,
			ConfirmTimeout: plan.Duration(time.Hour), OnConfirmTimeout: signals.OnTimeoutApprove, MaxSteps: 12, Parallelism: 2,
			HeartbeatTimeout: plan.Duration(5 * time.Second)},
		Clarify:      signals.ClarifyPolicy{AskQuestions: true},
		Budget:       signals.Budget{MaxTokens: 5000, MaxCostUSD: 1.5},
		Notify:       signals.NotifyPolicy{WebhookURL: "https://hooks.example.com/plan"},
		SystemPrompt: "be brief",
	}, req.Request())
	assert.Equal(t, "plan-x", f.id)
	assert.True(t, f.watch)
}

func TestStartFlagsDefaultsLeaveTheRequestZero(t *testing.T) {
	req, err := parseStart(t).request("Fix the cart")
	require.NoError(t, err)
	assert.Equal(t, signals.StartRequest{Goal: "Fix the cart"}, req.Request(), "the workflow fills defaults")
}

func TestStartFlagsRejectBadInput(t *testing.T) {
	cases := []struct {
		name    string
		goal    string
		args    []string
		wantErr string
	}{
		{name: "no goal", goal: " ", wantErr: "goal is required"},
		{name: "too many options", goal: "g", args: []string{"--options", "9"}, wantErr: "optionCount must be 1..5"},
		{name: "bad selection", goal: "g", args: []string{"--select", "sometimes"}, wantErr: `selection.mode "sometimes"`},
		{name: "bad mode", goal: "g", args: []string{"--mode", "fast"}, wantErr: `execution.mode "fast"`},
		{name: "bad webhook", goal: "g", args: []string{"--webhook", "ftp://x"}, wantErr: "notify.webhookURL must be an http or https URL"},
		{name: "bad threshold", goal: "g", args: []string{"--skip-threshold", "1.5"}, wantErr: "skipConfidenceThreshold"},
		{name: "bad priority", goal: "g", args: []string{"--priority", "urgent"}, wantErr: `--priority "urgent"`},
		{name: "negative timeout", goal: "g", args: []string{"--select-timeout", "-1m"}, wantErr: "must not be negative"},
		{name: "negative heartbeat timeout", goal: "g", args: []string{"--heartbeat-timeout", "-1s"}, wantErr: "must not be negative"},
		{name: "heartbeat timeout too short", goal: "g", args: []string{"--heartbeat-timeout", "200ms"},
			wantErr: "execution.heartbeatTimeout 200ms: want at least 1s"},
		{name: "unknown criterion", goal: "g", args: []string{"--rank-by", "beauty=2"}, wantErr: `ranking: unknown criterion "beauty"`},
		{name: "bad weight", goal: "g", args: []string{"--rank-by", "safety=lots"}, wantErr: `--rank-by "safety=lots": the weight must be a number above 0`},
		{name: "zero weight", goal: "g", args: []string{"--rank-by", "safety=0"}, wantErr: "the weight must be a number above 0"},
		{name: "criterion twice", goal: "g", args: []string{"--rank-by", "speed,speed=2"}, wantErr: `criterion "speed" given twice`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := parseStart(t, tc.args...).request(tc.goal)
			require.ErrorContains(t, err, tc.wantErr)
			assert.Equal(t, exitRejected, exitCode(err))
		})
	}
}

func TestStartRankByMapsOntoTheRanking(t *testing.T) {
	cases := []struct {
		name string
		args []string
		want []plan.Criterion
	}{
		{"none", nil, nil},
		{"weights", []string{"--rank-by", "safety=2,speed=1"},
			[]plan.Criterion{{Name: plan.BySafety, Weight: 2}, {Name: plan.BySpeed, Weight: 1}}},
		{"weight 1 when left out, repeatable, any case", []string{"--rank-by", " Cost ", "--rank-by", "confidence=0.5,"},
			[]plan.Criterion{{Name: plan.ByCost, Weight: 1}, {Name: plan.ByConfidence, Weight: 0.5}}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			req, err := parseStart(t, tc.args...).request("Migrate the orders table")
			require.NoError(t, err)
			assert.Equal(t, tc.want, req.Request().Ranking)
		})
	}
}

func TestListQuery(t *testing.T) {
	assert.Equal(t, "WorkflowType = 'PlanMode'", listQuery("", ""))
	assert.Equal(t, "WorkflowType = 'PlanMode' AND PlanPhase = 'executing' AND PlanAwaiting = 'selection'",
		listQuery("executing", "selection"))
	assert.Equal(t, `WorkflowType = 'PlanMode' AND PlanPhase = 'a\'b'`, listQuery("a'b", ""))
}
