package signals

import (
	"fmt"
	"strings"

	"github.com/planmode/planmode/plan"
)

// ForkRef names where a forked plan starts: the plan it comes from and the
// step after which its files are taken (StartRequest.Fork). The parent is
// only read, never changed.
type ForkRef struct {
	PlanID string `json:"planId"`
	StepID string `json:"stepId"`
}

// forkProblems checks a request's fork: both ids set and bounded. A fork
// may leave the goal empty, to go on with the parent's.
func forkProblems(f *ForkRef) []string {
	if f == nil {
		return nil
	}
	var errs []string
	switch {
	case strings.TrimSpace(f.PlanID) == "":
		errs = append(errs, "fork.planId is required")
	case len(f.PlanID) > maxPlanIDBytes:
		errs = append(errs, fmt.Sprintf("fork.planId is %d bytes: at most %d", len(f.PlanID), maxPlanIDBytes))
	}
	switch {
	case strings.TrimSpace(f.StepID) == "":
		errs = append(errs, "fork.stepId is required")
	case len(f.StepID) > plan.MaxIDBytes:
		errs = append(errs, fmt.Sprintf("fork.stepId is %d bytes: at most %d", len(f.StepID), plan.MaxIDBytes))
	}
	return errs
}
