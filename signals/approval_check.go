package signals

import (
	"bytes"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/planmode/planmode/plan"
)

// Bounds and defaults of approval gates.
const (
	// MaxApprovalArgsBytes bounds the arguments a ToolApproval shows and
	// the edited arguments an approval may carry, as JSON: a tool step's
	// params are bounded the same (plan.MaxToolParamsBytes).
	MaxApprovalArgsBytes = plan.MaxToolParamsBytes
	// MaxApprovalPreviewBytes bounds the head of arguments too long to
	// show whole.
	MaxApprovalPreviewBytes = 2 << 10
	// MaxRequestIDBytes bounds a request id.
	MaxRequestIDBytes = 64
	// MaxPendingApprovals bounds the gated calls a run holds at once: a
	// step holds at most one, and at most MaxParallelism steps run.
	MaxPendingApprovals = MaxParallelism
	// MaxApprovalDecisions bounds the decisions a run keeps; the oldest
	// are let go past it and counted.
	MaxApprovalDecisions = 200

	// DefaultApprovalTimeout is how long a gated call waits unless the
	// worker or the request says otherwise.
	DefaultApprovalTimeout = plan.Duration(24 * time.Hour)
	// DefaultApprovalRemindAfter is when the reminder goes out.
	DefaultApprovalRemindAfter = plan.Duration(time.Hour)
	// DefaultApprovalOnTimeout denies a call nobody decided.
	DefaultApprovalOnTimeout = ApprovalTimeoutDeny
)

// Validate refuses an approval without a request id; an argument digest
// that is not one; a negative plan version; edited arguments that are not
// a JSON object or are larger than MaxApprovalArgsBytes; a note longer
// than MaxTextBytes.
func (r ApproveToolCallRequest) Validate() error {
	if err := errors.Join(requestIDProblem(r.RequestID), textTooLong("note", r.Note), callerTooLong(r.By)); err != nil {
		return err
	}
	if r.ArgsDigest != "" && !validDigest(r.ArgsDigest) {
		return fmt.Errorf("argsDigest %q: want sha256: and 64 hex digits, as the pending query shows it", short(r.ArgsDigest))
	}
	if r.PlanVersion < 0 {
		return fmt.Errorf("planVersion %d: want the version the pending query shows (1 or more), or none", r.PlanVersion)
	}
	if len(r.Args) == 0 {
		return nil
	}
	if len(r.Args) > MaxApprovalArgsBytes {
		return tooLarge("args is %d bytes: at most %d bytes", len(r.Args), MaxApprovalArgsBytes)
	}
	var obj map[string]json.RawMessage
	//workflowcheck:ignore (decoding the payload only)
	if t := bytes.TrimSpace(r.Args); len(t) == 0 || t[0] != '{' || json.Unmarshal(t, &obj) != nil {
		return errors.New("args must be a JSON object: the tool's arguments")
	}
	return nil
}

// Validate refuses a denial without a request id or a reason, and a
// reason longer than MaxTextBytes.
func (r DenyToolCallRequest) Validate() error {
	if err := errors.Join(requestIDProblem(r.RequestID), textTooLong("reason", r.Reason), callerTooLong(r.By)); err != nil {
		return err
	}
	if strings.TrimSpace(r.Reason) == "" {
		return errors.New("reason is required: the agent sees it")
	}
	return nil
}

// Validate refuses a raise without a reason or a new cap, and a cap that
// is negative or not a finite number. Whether the caps go up is the run's
// to judge (Budget.Raise).
func (r RaiseBudgetRequest) Validate() error {
	if err := errors.Join(textTooLong("reason", r.Reason), callerTooLong(r.By)); err != nil {
		return err
	}
	switch c := r.MaxCostUSD; {
	case strings.TrimSpace(r.Reason) == "":
		return errors.New("reason is required")
	case r.MaxTokens < 0:
		return fmt.Errorf("maxTokens %d must not be negative", r.MaxTokens)
	case !(c >= 0) || math.IsInf(c, 1):
		return fmt.Errorf("maxCostUSD %v must be a finite number of 0 or more", c)
	case r.MaxTokens == 0 && c == 0:
		return errors.New("give maxTokens, maxCostUSD or both: the new caps")
	}
	return nil
}

// Raise returns b with the caps of r, refusing (typed InvalidInput) a cap
// lower than the one in force and a cap where b has none (zero is no
// bound: a new one would lower it). A zero field of r leaves its cap.
func (b Budget) Raise(r RaiseBudgetRequest) (Budget, error) {
	out := b
	if r.MaxTokens != 0 {
		switch {
		case b.MaxTokens == 0:
			return b, Reject(ErrorTypeInvalidInput, "maxTokens: the plan has no token cap to raise")
		case r.MaxTokens < b.MaxTokens:
			return b, Reject(ErrorTypeInvalidInput, "maxTokens %d is below the cap in force, %d: caps only go up", r.MaxTokens, b.MaxTokens)
		}
		out.MaxTokens = r.MaxTokens
	}
	if r.MaxCostUSD != 0 {
		switch {
		case b.MaxCostUSD == 0:
			return b, Reject(ErrorTypeInvalidInput, "maxCostUSD: the plan has no cost cap to raise")
		case r.MaxCostUSD < b.MaxCostUSD:
			return b, Reject(ErrorTypeInvalidInput, "maxCostUSD %v is below the cap in force, %v: caps only go up", r.MaxCostUSD, b.MaxCostUSD)
		}
		out.MaxCostUSD = r.MaxCostUSD
	}
	return out, nil
}

// CheckApproval refuses, typed [ErrorTypeStaleApproval], an approval of a
// that is not of what a shows (another argument digest or plan version)
// and any approval of a request asked under a plan version older than
// planVersion, the plan's version now. A request for another id is
// [ErrorTypeUnknownRequest].
func (a ToolApproval) CheckApproval(r ApproveToolCallRequest, planVersion int) error {
	switch {
	case r.RequestID != a.RequestID:
		return Reject(ErrorTypeUnknownRequest, "approval request %q is not open", short(r.RequestID))
	case r.ArgsDigest != "" && r.ArgsDigest != a.ArgsDigest:
		return Reject(ErrorTypeStaleApproval, "request %s: argsDigest %s is not the digest of the arguments asked about (%s)",
			a.RequestID, short(r.ArgsDigest), a.ArgsDigest)
	case r.PlanVersion != 0 && r.PlanVersion != a.PlanVersion:
		return Reject(ErrorTypeStaleApproval, "request %s was asked under plan version %d, not %d", a.RequestID, a.PlanVersion, r.PlanVersion)
	case a.PlanVersion != planVersion:
		return Reject(ErrorTypeStaleApproval, "request %s was asked under plan version %d; the plan is at version %d since",
			a.RequestID, a.PlanVersion, planVersion)
	}
	return nil
}

// WithDefaults returns p with its zero timeout, reminder and timeout
// outcome taken from d (the worker's), then from the Default values. A
// reminder due at or after the timeout is dropped (zero): the deadline
// comes first.
func (p ApprovalPolicy) WithDefaults(d ApprovalPolicy) ApprovalPolicy {
	p.Timeout = firstNonZero(p.Timeout, d.Timeout, DefaultApprovalTimeout)
	p.RemindAfter = firstNonZero(p.RemindAfter, d.RemindAfter, DefaultApprovalRemindAfter)
	if p.OnTimeout == "" {
		p.OnTimeout = d.OnTimeout
	}
	if p.OnTimeout == "" {
		p.OnTimeout = DefaultApprovalOnTimeout
	}
	if p.RemindAfter >= p.Timeout {
		p.RemindAfter = 0
	}
	return p
}

// firstNonZero returns the first non-zero duration.
func firstNonZero(ds ...plan.Duration) plan.Duration {
	for _, d := range ds {
		if d != 0 {
			return d
		}
	}
	return 0
}

// Problems lists what is wrong with an approval policy, each naming its
// field under prefix ("approval" in a request).
func (p ApprovalPolicy) Problems(prefix string) []string {
	var errs []string
	if err := p.Rules.Validate(); err != nil {
		errs = append(errs, fmt.Sprintf("%s.rules: %v", prefix, err))
	}
	for _, w := range []struct {
		field string
		d     plan.Duration
	}{{"timeout", p.Timeout}, {"remindAfter", p.RemindAfter}} {
		if w.d < 0 || w.d > MaxWait {
			errs = append(errs, fmt.Sprintf("%s.%s %s: want 0 (the worker's) up to %s", prefix, w.field, w.d, MaxWait))
		}
	}
	if p.Timeout != 0 && p.RemindAfter >= p.Timeout {
		errs = append(errs, fmt.Sprintf("%s.remindAfter %s must come before %s.timeout %s", prefix, p.RemindAfter, prefix, p.Timeout))
	}
	switch p.OnTimeout {
	case "", ApprovalTimeoutDeny, ApprovalTimeoutFailStep, ApprovalTimeoutPause, ApprovalTimeoutFailPlan:
	default:
		errs = append(errs, fmt.Sprintf("%s.onTimeout %q: want deny, fail-step, pause or fail-plan", prefix, short(string(p.OnTimeout))))
	}
	return errs
}

// requestIDProblem refuses an empty or overlong request id.
func requestIDProblem(id string) error {
	switch {
	case strings.TrimSpace(id) == "":
		return errors.New("requestId is required (see the pending query)")
	case len(id) > MaxRequestIDBytes:
		return tooLarge("requestId is %d bytes: at most %d bytes", len(id), MaxRequestIDBytes)
	}
	return nil
}

// validDigest reports whether d is "sha256:" and 64 lowercase hex digits,
// as plan.ArgsDigest writes it.
func validDigest(d string) bool {
	h, ok := strings.CutPrefix(d, "sha256:")
	if !ok || len(h) != 64 || strings.ToLower(h) != h {
		return false
	}
	_, err := hex.DecodeString(h)
	return err == nil
}

// Interface checks: the approval payloads check themselves.
var (
	_ interface{ Validate() error } = ApproveToolCallRequest{}
	_ interface{ Validate() error } = DenyToolCallRequest{}
	_ interface{ Validate() error } = RaiseBudgetRequest{}
)
