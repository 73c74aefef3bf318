package config

import (
	"fmt"
	"strings"
	"time"

	"github.com/go-viper/mapstructure/v2"

	"github.com/planmode/planmode/plan"
	"github.com/planmode/planmode/signals"
)

// Keys of approval gates.
const (
	KeyApprovalRules       = "approval.rules"
	KeyApprovalRemindAfter = "approval.remindAfter"
	KeyApprovalTimeout     = "approval.timeout"
	KeyApprovalOnTimeout   = "approval.onTimeout"
)

// Approval is the worker's approval gate for tool calls: its rules, which
// a plan may tighten and never loosen, and how a gated call escalates.
// Rules are read from the configuration file only (a list has no
// environment form).
type Approval struct {
	// Rules decide each tool call in order, first match wins; a call no
	// rule matches is decided by plan.DefaultApproval.
	Rules plan.ApprovalRules `mapstructure:"rules"`
	// RemindAfter is when the approval-reminder event goes out.
	RemindAfter time.Duration `mapstructure:"remindAfter"`
	// Timeout is how long a gated call waits before OnTimeout decides.
	Timeout time.Duration `mapstructure:"timeout"`
	// OnTimeout is deny, fail-step, pause or fail-plan.
	OnTimeout string `mapstructure:"onTimeout"`
}

// approvalDefaults are the defaults NewViper sets for the approval keys.
func approvalDefaults() map[string]any {
	return map[string]any{
		KeyApprovalRemindAfter: time.Duration(signals.DefaultApprovalRemindAfter),
		KeyApprovalTimeout:     time.Duration(signals.DefaultApprovalTimeout),
		KeyApprovalOnTimeout:   string(signals.DefaultApprovalOnTimeout),
	}
}

// Policy returns the worker's approval settings as a plan's request
// takes them: the defaults a request's zero fields fall back to
// (signals.ApprovalPolicy.WithDefaults), and the rules a request's rules
// tighten (plan.Tighten).
func (a Approval) Policy() signals.ApprovalPolicy {
	return signals.ApprovalPolicy{
		Rules:       a.Rules,
		Timeout:     plan.Duration(a.Timeout),
		RemindAfter: plan.Duration(a.RemindAfter),
		OnTimeout:   signals.ApprovalTimeout(a.OnTimeout),
	}
}

// problems lists what is wrong with the approval settings, with the
// bounds a request's approval policy has: a rule that does not validate
// (named by its number and pattern), a timeout that is not positive or
// beyond signals.MaxWait, a reminder that is negative or not before the
// timeout, an unknown timeout outcome. A gate never waits for ever.
func (a Approval) problems() []string {
	var errs []string
	if err := a.Rules.Validate(); err != nil {
		errs = append(errs, fmt.Sprintf("%s: %v", KeyApprovalRules, err))
	}
	if a.Timeout <= 0 || a.Timeout > time.Duration(signals.MaxWait) {
		errs = append(errs, fmt.Sprintf("%s %s: want more than 0 and at most %s", KeyApprovalTimeout, a.Timeout, signals.MaxWait))
	}
	if a.RemindAfter < 0 || (a.Timeout > 0 && a.RemindAfter >= a.Timeout) {
		errs = append(errs, fmt.Sprintf("%s %s: want 0 (no reminder) or less than %s %s",
			KeyApprovalRemindAfter, a.RemindAfter, KeyApprovalTimeout, a.Timeout))
	}
	switch signals.ApprovalTimeout(a.OnTimeout) {
	case signals.ApprovalTimeoutDeny, signals.ApprovalTimeoutFailStep, signals.ApprovalTimeoutPause, signals.ApprovalTimeoutFailPlan:
	default:
		errs = append(errs, fmt.Sprintf("%s %q: want deny, fail-step, pause or fail-plan", KeyApprovalOnTimeout, a.OnTimeout))
	}
	return errs
}

// decodeRules decodes the approval.rules of the file strictly: a field a
// rule does not have is refused, naming it. Viper's own decoding ignores
// it, and a misspelt "arg" on an allow rule would allow every call of the
// tool instead of a few.
func decodeRules(raw any) (plan.ApprovalRules, error) {
	if raw == nil {
		return nil, nil
	}
	var rules plan.ApprovalRules
	dec, err := mapstructure.NewDecoder(&mapstructure.DecoderConfig{
		ErrorUnused: true,
		Result:      &rules,
		MatchName:   func(key, field string) bool { return key == field || key == lowerFirst(field) },
	})
	if err != nil {
		return nil, err
	}
	if err := dec.Decode(raw); err != nil {
		msg := strings.TrimSpace(strings.TrimPrefix(err.Error(), "decoding failed due to the following error(s):"))
		return nil, fmt.Errorf("config: %s (rules count from [0]): %s", KeyApprovalRules, strings.ReplaceAll(msg, "\n", "; "))
	}
	return rules, nil
}

// lowerFirst lower-cases the first letter of a field name: Match reads
// match.
func lowerFirst(s string) string {
	if s == "" {
		return s
	}
	return string(s[0]|0x20) + s[1:]
}
