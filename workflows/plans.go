package workflows

import (
	"fmt"
	"strings"

	"github.com/planmode/planmode/plan"
)

// What the workflow does to a plan besides running it: changes tried on a
// clone, results compacted, steps picked out, issues rendered.

// tryChange is changePlan's dry run on p within lim: it returns the
// changed clone.
func tryChange(p *plan.Plan, lim plan.Limits, fn func(*plan.Plan) error) (plan.Plan, error) {
	c := p.Clone()
	if err := fn(&c); err != nil {
		return plan.Plan{}, err
	}
	if res := plan.Validate(c, lim); !res.Valid {
		return plan.Plan{}, fmt.Errorf("the changed plan is invalid: %s", strings.Join(issueTexts(res.Errors), "; "))
	}
	return c, nil
}

// compactAll compacts every done step's result in p (nil: no plan yet):
// before the state is handed on or the Result returned, when no step
// waits for its reflection.
func compactAll(p *plan.Plan) {
	if p == nil {
		return
	}
	for i := range p.Steps {
		compact(p, &p.Steps[i])
	}
}

// compact cuts step s's result to what p keeps of a done step
// (plan.Plan.CompactResult). That looks up the step and searches the plan
// for a skip condition reading its output, both walks of the plan: it is
// asked only when the result is longer than what the plan keeps, which
// after its reflection no result is.
func compact(p *plan.Plan, s *plan.Step) {
	if s == nil || s.Result == nil {
		return
	}
	if len(s.Result.Output) > plan.KeptOutputBytes || len(s.Result.Error) > plan.KeptErrorBytes {
		p.CompactResult(s.ID)
	}
}

// pendingOf keeps the ids of p's steps that are still pending.
func pendingOf(p *plan.Plan, ids []string) []string {
	var out []string
	for _, id := range ids {
		if s := p.StepByID(id); s != nil && s.Status == plan.StepPending {
			out = append(out, id)
		}
	}
	return out
}

// issueTexts renders validation issues as "CODE [step]: message".
func issueTexts(issues []plan.Issue) []string {
	out := make([]string, 0, len(issues))
	for _, i := range issues {
		if i.StepID != "" {
			out = append(out, fmt.Sprintf("%s [%s]: %s", i.Code, i.StepID, i.Message))
			continue
		}
		out = append(out, fmt.Sprintf("%s: %s", i.Code, i.Message))
	}
	return out
}
