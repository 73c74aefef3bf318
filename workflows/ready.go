package workflows

import (
	"slices"

	"github.com/planmode/planmode/plan"
)

// planIndex answers the executor's questions about the plan (which step
// has an id, which step may start next, how much of the work is done)
// without building maps or copying steps at every call as
// plan.Plan.StepByID, ReadyExcept and PercentOfWork do: their cost grew
// with the plan's length, several times a step. It keeps where each step
// is, where its dependencies are and which steps are fallback-only, and
// rebuilds that when the plan's structure may have changed: another plan,
// another slice of steps, or another version (every edit, skip and replan
// bumps it). Statuses are read live, so a step's progress never makes it
// stale. It gives the same answers as the plan's own methods
// (TestPlanIndexAgreesWithThePlan).
type planIndex struct {
	plan    *plan.Plan
	first   *plan.Step
	n       int
	version int

	pos map[string]int
	// deps are the positions of each step's dependencies, -1 for an id
	// no step has.
	deps [][]int
	// fallbackOnly marks the steps that run only in another's place.
	fallbackOnly []bool
}

// refresh rebuilds the index when p is not the plan it describes.
func (x *planIndex) refresh(p *plan.Plan) {
	var first *plan.Step
	if len(p.Steps) > 0 {
		first = &p.Steps[0]
	}
	if x.plan == p && x.first == first && x.n == len(p.Steps) && x.version == p.Version {
		return
	}
	*x = planIndex{plan: p, first: first, n: len(p.Steps), version: p.Version, pos: make(map[string]int, len(p.Steps))}
	fallbacks := map[string]bool{}
	for i := range p.Steps {
		s := &p.Steps[i]
		if _, dup := x.pos[s.ID]; !dup {
			x.pos[s.ID] = i
		}
		if s.FallbackStepID != "" && s.FallbackStepID != s.ID {
			fallbacks[s.FallbackStepID] = true
		}
	}
	x.deps = make([][]int, len(p.Steps))
	x.fallbackOnly = make([]bool, len(p.Steps))
	for i := range p.Steps {
		s := &p.Steps[i]
		x.fallbackOnly[i] = fallbacks[s.ID]
		for _, d := range s.DependsOn {
			j, ok := x.pos[d]
			if !ok {
				j = -1
			}
			x.deps[i] = append(x.deps[i], j)
		}
	}
}

// step returns p's step id, or nil.
func (x *planIndex) step(p *plan.Plan, id string) *plan.Step {
	x.refresh(p)
	if i, ok := x.pos[id]; ok {
		return &p.Steps[i]
	}
	return nil
}

// firstReady returns the first step of p, in plan order, that may start
// now and that held does not hold back, or "": a pending step that is not
// fallback-only and whose dependencies all completed or were skipped
// (plan.Plan.Ready).
func (x *planIndex) firstReady(p *plan.Plan, held []string) string {
	x.refresh(p)
	steps := p.Steps
	for i := range steps {
		s := &steps[i]
		if s.Status != plan.StepPending || x.fallbackOnly[i] || !x.depsMet(steps, i) || slices.Contains(held, s.ID) {
			continue
		}
		return s.ID
	}
	return ""
}

// percent is plan.Plan.PercentOfWork of p: the completed steps among
// those that will run, 0 to 100.
func (x *planIndex) percent(p *plan.Plan) int {
	x.refresh(p)
	done, total, open := 0, 0, false
	for i := range p.Steps {
		s := &p.Steps[i]
		if !s.Status.Done() {
			open = true
		}
		if !x.willRun(s, i) {
			continue
		}
		total++
		if s.Status == plan.StepCompleted {
			done++
		}
	}
	if total == 0 {
		if open || (len(p.Steps) == 0 && p.Status != plan.PlanCompleted) {
			return 0
		}
		return 100
	}
	return done * 100 / total
}

// willRun is plan.Plan.WillRun of s, step i: it is not skipped, not
// cancelled before it started, and not a fallback-only step still
// waiting for a failure to stand in for.
func (x *planIndex) willRun(s *plan.Step, i int) bool {
	switch {
	case s.Status == plan.StepSkipped:
		return false
	case s.Status == plan.StepCancelled && s.StartedAt == nil:
		return false
	case (s.Status == plan.StepPending || s.Status == "") && x.fallbackOnly[i]:
		return false
	}
	return true
}

// depsMet reports whether every dependency of step i completed or was
// skipped.
func (x *planIndex) depsMet(steps []plan.Step, i int) bool {
	for _, j := range x.deps[i] {
		if j < 0 {
			return false
		}
		if st := steps[j].Status; st != plan.StepCompleted && st != plan.StepSkipped {
			return false
		}
	}
	return true
}
