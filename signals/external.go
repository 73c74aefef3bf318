package signals

import (
	"fmt"
	"strings"
	"time"

	"github.com/planmode/planmode/plan"
)

// ExternalOptionID is the id of the one option a run started with a plan
// shows in its options view: the plan the caller handed in.
const ExternalOptionID = "external"

// ExternalPlan is a plan a caller hands in with the start request
// (StartRequest.Plan) or that `planmode export` prints: the steps in the
// shape edit-plan takes (plan.Step), ids optional. A run given one skips
// clarification, option generation and selection and executes it at once.
type ExternalPlan struct {
	// Title names the plan; empty takes the goal.
	Title string `json:"title,omitempty"`
	// Steps run in dependency order, as in any plan. A step without an id
	// gets "s<N>"; status, result and times are ignored: every step starts
	// pending.
	Steps []plan.Step `json:"steps"`
}

// Plan returns the steps as a fresh plan (version 1, every step pending
// and numbered, missing ids filled) with id, task id, title and times set.
// It does not validate: see Problems.
func (e ExternalPlan) Plan(id, taskID, goal string, at time.Time) plan.Plan {
	p := plan.Plan{
		ID:        id,
		TaskID:    taskID,
		Title:     strings.TrimSpace(e.Title),
		CreatedAt: at,
		UpdatedAt: at,
		Version:   1,
		Status:    plan.PlanReady,
	}
	if p.Title == "" {
		p.Title = plan.TruncateBytes(goal, plan.MaxTitleBytes)
	}
	// Ids first, so that NextID skips every id the caller chose.
	p.Steps = make([]plan.Step, len(e.Steps))
	for i, s := range e.Steps {
		p.Steps[i] = s.Clone()
	}
	for i := range p.Steps {
		s := &p.Steps[i]
		if strings.TrimSpace(s.ID) == "" {
			s.ID = p.NextID()
		}
		s.Number = i + 1
		s.Status = plan.StepPending
		s.Result, s.StartedAt, s.EndedAt, s.Note = nil, nil, nil, ""
	}
	return p
}

// externalLimits returns the bounds an external plan of r is held to: the run's
// step bound (execution.maxSteps, default DefaultMaxSteps) and the
// built-in tools, as for an edit.
// MCP tool names pass here when well-formed: the run checks them against
// the tools its worker offers once it recorded them.
func (r StartRequest) externalLimits() plan.Limits {
	tools := plan.BuiltinTools()
	if r.Plan != nil {
		tools = append(tools, mcpToolNames(r.Plan.Steps)...)
	}
	return plan.Limits{MaxSteps: r.WithDefaults().Execution.MaxSteps, Tools: tools}
}

// Problems validates an external plan as the run would hold it: every
// error of plan.Validate under limits, as "plan: CODE [step]: message".
func (e ExternalPlan) Problems(limits plan.Limits) []string {
	res := plan.Validate(e.Plan("external", "", "external plan", time.Time{}), limits)
	out := make([]string, 0, len(res.Errors))
	for _, i := range res.Errors {
		where := ""
		if i.StepID != "" {
			where = " [" + i.StepID + "]"
		}
		out = append(out, fmt.Sprintf("plan: %s%s: %s", i.Code, where, i.Message))
	}
	return out
}

// externalPlanProblems checks r's plan, when it carries one, against the
// run's limits, and refuses a template beside it: the plan replaces the
// options a template would produce.
func externalPlanProblems(r StartRequest) []string {
	if r.Plan == nil {
		return nil
	}
	errs := r.Plan.Problems(r.externalLimits())
	if r.Template != "" {
		errs = append(errs, "plan and template exclude each other: the plan replaces the options")
	}
	return errs
}
