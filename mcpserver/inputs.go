package mcpserver

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"
	"unicode"

	"github.com/planmode/planmode/plan"
	"github.com/planmode/planmode/planclient"
	"github.com/planmode/planmode/signals"
)

// The tools' arguments: each is the contract's payload with the plan it
// is for, so that its schema and its checks are the payload's own.

// planRef names the plan a tool acts on.
type planRef struct {
	PlanID string `json:"planId" jsonschema:"the plan's workflow id, as plan_start or plan_list answered it"`
}

// plan returns the plan the arguments name.
func (r planRef) plan() string { return r.PlanID }

// checkPlanID refuses a plan id that is empty, longer than Temporal takes
// or holds a control character.
func checkPlanID(id string) error {
	switch {
	case strings.TrimSpace(id) == "":
		return errors.New("planId is required")
	case len(id) > signals.MaxWorkflowIDBytes:
		return fmt.Errorf("planId is %d bytes: at most %d", len(id), signals.MaxWorkflowIDBytes)
	case strings.IndexFunc(id, unicode.IsControl) >= 0:
		return errors.New("planId holds a control character")
	}
	return nil
}

// check judges a tool's arguments on their own, before anything is asked
// of Temporal: the plan id they name, then the payload's Validate (its
// bounds of limits.go and its contradictions).
func check(in any) error {
	if r, ok := in.(interface{ plan() string }); ok {
		if err := checkPlanID(r.plan()); err != nil {
			return fmt.Errorf("%w: %w", signals.ErrRejected, err)
		}
	}
	if v, ok := in.(interface{ Validate() error }); ok {
		if err := v.Validate(); err != nil {
			return fmt.Errorf("%w: %w", signals.ErrRejected, err)
		}
	}
	return nil
}

// startInput is plan_start's arguments: a StartRequest and, optionally,
// the new plan's id.
type startInput struct {
	PlanID string `json:"planId,omitempty" jsonschema:"the new plan's workflow id; empty: plan- and a new UUID"`
	signals.StartRequest
}

// UnmarshalJSON reads planId and hands the rest to the StartRequest's own
// decoding, which the embedded request would otherwise take over whole.
func (in *startInput) UnmarshalJSON(b []byte) error {
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(b, &fields); err != nil {
		return err
	}
	if raw, ok := fields["planId"]; ok {
		if err := json.Unmarshal(raw, &in.PlanID); err != nil {
			return fmt.Errorf("planId: %w", err)
		}
		delete(fields, "planId")
	}
	rest, err := json.Marshal(fields)
	if err != nil {
		return err
	}
	return json.Unmarshal(rest, &in.StartRequest)
}

// Validate checks the new plan's id, when given, and the request.
func (in startInput) Validate() error {
	if in.PlanID != "" {
		if err := checkPlanID(in.PlanID); err != nil {
			return err
		}
	}
	return in.StartRequest.Validate()
}

// startOutput answers plan_start and plan_fork: the plan started and, as
// tasks/result answers a plan started as a task, its Result once it
// ended. One shape for both answers, since a host checks tasks/result's
// structured content against the tool's output schema.
type startOutput struct {
	PlanID string `json:"planId"`
	// RunID is the run the start began; a task's result leaves it out.
	RunID  string          `json:"runId,omitempty"`
	Result *signals.Result `json:"result,omitempty"`
}

// forkInput is plan_fork's arguments: the plan and step to start from,
// and what the new plan does.
type forkInput struct {
	signals.ForkRef
	Goal      string `json:"goal,omitempty" jsonschema:"a goal of its own; empty: go on with the parent's steps not done after stepId"`
	NewPlanID string `json:"newPlanId,omitempty" jsonschema:"the new plan's workflow id; empty: plan- and a new UUID"`
}

// plan returns the plan forked from.
func (in forkInput) plan() string { return in.PlanID }

// request is the StartRequest of the fork.
func (in forkInput) request() signals.StartRequest {
	ref := in.ForkRef
	return signals.StartRequest{Goal: in.Goal, Fork: &ref}
}

// Validate checks the new plan's id, when given, and the request.
func (in forkInput) Validate() error {
	if in.NewPlanID != "" {
		if err := checkPlanID(in.NewPlanID); err != nil {
			return err
		}
	}
	return in.request().Validate()
}

// statusOutput answers plan_status: how the plan stands and, when it
// answers its queries, what it waits for.
type statusOutput struct {
	Standing planclient.Standing `json:"standing"`
	Pending  *signals.Pending    `json:"pending,omitempty"`
	// PendingError says why Pending is missing though the plan answered
	// its progress query.
	PendingError string `json:"pendingError,omitempty"`
}

type selectInput struct {
	planRef
	signals.SelectOptionRequest
}

type refineInput struct {
	planRef
	signals.RefinePlanRequest
}

type answerInput struct {
	planRef
	signals.AnswerClarificationRequest
}

type confirmSkipInput struct {
	planRef
	signals.ConfirmSkipRequest
}

type approveInput struct {
	planRef
	signals.ApproveToolCallRequest
}

type denyInput struct {
	planRef
	signals.DenyToolCallRequest
}

type raiseBudgetInput struct {
	planRef
	signals.RaiseBudgetRequest
}

type editInput struct {
	planRef
	signals.EditPlanRequest
}

// controlAction is what plan_control does.
type controlAction string

// Control actions.
const (
	actionPause  controlAction = "pause"
	actionResume controlAction = "resume"
	actionCancel controlAction = "cancel"
)

// controlInput is plan_control's arguments.
type controlInput struct {
	planRef
	Action controlAction `json:"action" jsonschema:"pause (at the next step boundary), resume, or cancel (stop the plan's work and write a partial summary)"`
	signals.ControlRequest
}

// Validate refuses an unknown action and checks the request.
func (in controlInput) Validate() error {
	switch in.Action {
	case actionPause, actionResume, actionCancel:
	default:
		return fmt.Errorf("action %q: want pause, resume or cancel", plan.TruncateBytes(string(in.Action), signals.MaxNameBytes))
	}
	return in.ControlRequest.Validate()
}

// controlOutput answers plan_control.
type controlOutput struct {
	PlanID string        `json:"planId"`
	Action controlAction `json:"action"`
	// State is the run's state after a pause or resume.
	State *signals.ControlState `json:"state,omitempty"`
	// CancelRequested is set once a cancellation is recorded; the plan
	// then ends cancelled with a partial summary (plan_result).
	CancelRequested bool `json:"cancelRequested,omitempty"`
}

// rollbackInput is plan_rollback's arguments: the PlanRollback request,
// which names its plan.
type rollbackInput struct {
	signals.RollbackPlanRequest
}

// plan returns the plan rolled back.
func (in rollbackInput) plan() string { return in.PlanID }

// resultInput is plan_result's arguments.
type resultInput struct {
	planRef
	Wait plan.Duration `json:"wait,omitempty" jsonschema:"how long to wait for an open plan to end, at most the server's call timeout; empty: do not wait"`
}

// listInput is plan_list's arguments.
type listInput struct {
	Phase    plan.Phase       `json:"phase,omitempty" jsonschema:"only plans in this phase"`
	Awaiting signals.Awaiting `json:"awaiting,omitempty" jsonschema:"only plans waiting for this"`
	Limit    int              `json:"limit,omitempty" jsonschema:"most plans to answer, newest first (default 20, at most 100)"`
}

// Validate refuses a limit out of range; the phase and the awaiting are
// the schema's to check.
func (in listInput) Validate() error {
	if in.Limit < 0 || in.Limit > MaxListPlans {
		return fmt.Errorf("limit %d: want 1 to %d", in.Limit, MaxListPlans)
	}
	return nil
}

// planSummary is one plan of plan_list.
type planSummary struct {
	PlanID   string `json:"planId"`
	Status   string `json:"status"`
	Phase    string `json:"phase,omitempty"`
	Awaiting string `json:"awaiting,omitempty"`
	Progress int64  `json:"progress"`
	Goal     string `json:"goal,omitempty"`
	// GoalEncrypted marks a plan whose goal this server cannot read: its
	// payloads are encrypted and PlanGoal holds only a digest.
	GoalEncrypted bool      `json:"goalEncrypted,omitempty"`
	StartedAt     time.Time `json:"startedAt"`
}

// listOutput answers plan_list.
type listOutput struct {
	Plans []planSummary `json:"plans"`
	// More is set when more plans match than were answered.
	More bool `json:"more,omitempty"`
}

// approvalsInput is plan_approvals' arguments.
type approvalsInput struct {
	PlanID string `json:"planId,omitempty" jsonschema:"only this plan's gated calls; empty: every open plan's"`
}

// Validate checks the plan id, when given.
func (in approvalsInput) Validate() error {
	if in.PlanID == "" {
		return nil
	}
	return checkPlanID(in.PlanID)
}
