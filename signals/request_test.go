package signals

import (
	"math"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/planmode/planmode/plan"
)

func TestValidateRefusesUnknownPriorityAndNegativeTimeouts(t *testing.T) {
	cases := []struct {
		name    string
		edit    func(r *StartRequest)
		wantErr string
	}{
		{"unknown priority", func(r *StartRequest) { r.Priority = "urgent" }, `priority "urgent": want low, medium, high or critical`},
		{"negative selection timeout", func(r *StartRequest) { r.Selection.Timeout = plan.Duration(-time.Minute) }, "timeouts must not be negative"},
		{"negative confirm timeout", func(r *StartRequest) { r.Execution.ConfirmTimeout = plan.Duration(-time.Second) }, "timeouts must not be negative"},
		{"negative clarify timeout", func(r *StartRequest) { r.Clarify.Timeout = plan.Duration(-time.Second) }, "timeouts must not be negative"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := StartRequest{Goal: "g"}
			tc.edit(&r)
			err := r.Validate()
			require.Error(t, err)
			assert.Contains(t, err.Error(), tc.wantErr)
		})
	}
	ok := StartRequest{Goal: "g", Priority: plan.PriorityCritical, Selection: SelectionPolicy{Timeout: plan.Duration(time.Hour)}}
	assert.NoError(t, ok.Validate())
}

func TestValidateBoundsEveryField(t *testing.T) {
	long := func(n int) string { return strings.Repeat("x", n) }
	cases := []struct {
		name    string
		edit    func(r *StartRequest)
		wantErr string
	}{
		{"goal", func(r *StartRequest) { r.Goal = long(MaxGoalBytes + 1) }, "goal is 32769 bytes: at most 32768"},
		{"requirements count", func(r *StartRequest) { r.Requirements = make([]string, MaxListItems+1) }, "requirements has 51 items: at most 50"},
		{"a constraint", func(r *StartRequest) { r.Constraints = []string{"ok", long(MaxTextBytes + 1)} }, "constraints[1] is 4097 bytes: at most 4096"},
		{"workspace", func(r *StartRequest) { r.Workspace = "/" + long(MaxPathBytes) }, "workspace is 4097 bytes: at most 4096"},
		{"template", func(r *StartRequest) { r.Template = long(65) }, "template is 65 bytes: at most 64"},
		{"system prompt", func(r *StartRequest) { r.SystemPrompt = long(MaxPromptBytes + 1) }, "systemPrompt is 16385 bytes: at most 16384"},
		{"phase prompt", func(r *StartRequest) { r.PhasePrompts = map[string]string{"planning": long(MaxPromptBytes + 1)} },
			`phasePrompts["planning"] is 16385 bytes: at most 16384`},
		{"unknown phase", func(r *StartRequest) { r.PhasePrompts = map[string]string{"dreaming": "x"} },
			`phasePrompts["dreaming"]: unknown phase: want clarifying, planning, executing, reflecting, summarizing`},
		{"webhook", func(r *StartRequest) { r.Notify.WebhookURL = "https://h/" + long(MaxURLBytes) }, "notify.webhookURL is 2058 bytes: at most 2048"},
		{"max steps", func(r *StartRequest) { r.Execution.MaxSteps = 100000 }, "execution.maxSteps 100000 must be within 0..1000"},
		{"negative max steps", func(r *StartRequest) { r.Execution.MaxSteps = -1 }, "execution.maxSteps -1 must be within 0..1000"},
		{"iterations", func(r *StartRequest) { r.Execution.MaxIterationsPerStep = 51 }, "execution.maxIterationsPerStep 51 must be within 0..50"},
		{"parallelism", func(r *StartRequest) { r.Execution.Parallelism = 1000000 }, "execution.parallelism 1000000 must be within 0..32"},
		{"threshold", func(r *StartRequest) { r.Execution.SkipConfidenceThreshold = math.NaN() }, "execution.skipConfidenceThreshold NaN must be within 0..1"},
		{"heartbeat", func(r *StartRequest) { r.Execution.HeartbeatTimeout = plan.Duration(time.Hour) }, "execution.heartbeatTimeout 1h0m0s: at most 10m0s"},
		{"selection wait", func(r *StartRequest) { r.Selection.Timeout = plan.Duration(1000 * time.Hour) },
			"selection.timeout 1000h0m0s: at most 720h0m0s (zero waits for ever)"},
		{"confirm wait", func(r *StartRequest) { r.Execution.ConfirmTimeout = MaxWait + 1 }, "execution.confirmTimeout 720h0m0.000000001s: at most 720h0m0s"},
		{"clarify wait", func(r *StartRequest) { r.Clarify.Timeout = plan.Duration(-time.Second) }, "clarify.timeout -1s: timeouts must not be negative"},
		{"tokens", func(r *StartRequest) { r.Budget.MaxTokens = -1 }, "budget.maxTokens -1 must not be negative"},
		{"cost", func(r *StartRequest) { r.Budget.MaxCostUSD = math.Inf(1) }, "budget.maxCostUSD +Inf must be a finite number of 0 or more"},
		{"option count", func(r *StartRequest) { r.OptionCount = 9 }, "optionCount must be 1..5, not 9"},
		{"long unknown names are cut", func(r *StartRequest) { r.Selection.Mode = SelectionMode(long(10000)) }, `selection.mode "xxxx`},
		{"whole request", func(r *StartRequest) {
			r.Goal = long(MaxGoalBytes)
			r.SystemPrompt = long(MaxPromptBytes)
			r.Requirements = slices.Repeat([]string{long(MaxTextBytes)}, MaxListItems)
			r.Constraints = slices.Repeat([]string{long(MaxTextBytes)}, MaxListItems)
		}, "at most 262144 (256 KiB)"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := StartRequest{Goal: "g"}
			tc.edit(&r)
			err := r.Validate()
			require.Error(t, err)
			assert.Contains(t, err.Error(), tc.wantErr)
			assert.Less(t, len(err.Error()), 2<<10, "a refusal stays small whatever was sent")
		})
	}
}

func TestValidateAcceptsARequestAtTheBounds(t *testing.T) {
	r := StartRequest{
		Goal:         strings.Repeat("g", MaxGoalBytes),
		Requirements: slices.Repeat([]string{strings.Repeat("r", MaxTextBytes)}, 10),
		SystemPrompt: strings.Repeat("s", MaxPromptBytes),
		PhasePrompts: map[string]string{"reflecting": strings.Repeat("p", MaxPromptBytes)},
		OptionCount:  MaxOptionCount,
		Selection:    SelectionPolicy{Timeout: MaxWait},
		Execution: ExecutionPolicy{MaxSteps: MaxSteps, MaxIterationsPerStep: MaxIterationsPerStep, Parallelism: MaxParallelism,
			HeartbeatTimeout: MaxHeartbeatTimeout, ConfirmTimeout: MaxWait, SkipConfidenceThreshold: 1},
		Clarify: ClarifyPolicy{Timeout: MaxWait},
		Budget:  Budget{MaxTokens: 1 << 40, MaxCostUSD: 1e6},
	}
	assert.NoError(t, r.Validate())
}

func TestValidateRefusalStaysSmall(t *testing.T) {
	r := StartRequest{Goal: "g"}
	for range 5000 {
		r.Ranking = append(r.Ranking, plan.Criterion{Name: plan.CriterionName(strings.Repeat("n", 100))})
		r.History = append(r.History, plan.Message{Role: plan.MessageRole(strings.Repeat("r", 100))})
	}
	err := r.Validate()
	require.Error(t, err)
	assert.Less(t, len(err.Error()), 12<<10)
	assert.Contains(t, err.Error(), "more problems")
}

func TestDefaultParallelismRunsIndependentStepsTogether(t *testing.T) {
	r := StartRequest{Goal: "g"}.WithDefaults()
	assert.Equal(t, DefaultParallelism, r.Execution.Parallelism)
	assert.Greater(t, r.Execution.Parallelism, 1)
	assert.LessOrEqual(t, r.Execution.Parallelism, MaxParallelism)
	one := StartRequest{Goal: "g", Execution: ExecutionPolicy{Parallelism: 1}}.WithDefaults()
	assert.Equal(t, 1, one.Execution.Parallelism, "an explicit 1 stays")
	require.NoError(t, r.Validate())
}

func TestValidateKnowsTheTemplates(t *testing.T) {
	for _, name := range append(plan.TemplateNames(), "", plan.TemplateAuto) {
		assert.NoError(t, StartRequest{Goal: "g", Template: name}.Validate(), "template %q", name)
	}
	err := StartRequest{Goal: "g", Template: "nosuch"}.Validate()
	require.Error(t, err)
	assert.Contains(t, err.Error(), `template "nosuch" is unknown: use one of refactoring, bug_fix, feature, documentation, analysis, "auto", or none`)
}

func TestTenantIsBoundedAndPrintable(t *testing.T) {
	ok := StartRequest{Goal: "g", Tenant: "team-a"}
	require.NoError(t, ok.Validate())
	long := StartRequest{Goal: "g", Tenant: strings.Repeat("t", MaxNameBytes+1)}
	assert.ErrorContains(t, long.Validate(), "tenant is 65 bytes: at most 64")
	ctl := StartRequest{Goal: "g", Tenant: "a\nb"}
	assert.ErrorContains(t, ctl.Validate(), "tenant holds a control character")
}
