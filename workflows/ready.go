package workflows

import (
	"slices"

	"github.com/planmode/planmode/plan"
)

// planIndex answers the executor's two questions about the plan, which
// step has an id and which step may start next, without walking the plan
// with maps built afresh at every call (plan.Plan.StepByID,
// plan.Plan.ReadyExcept): their cost grew with the plan's length, several
// times a step. It keeps where each step is, where its dependencies are
// and which steps are fallback-only, and rebuilds that when the plan's
// structure may have changed: another plan, another slice of steps, or
// another version (every edit, skip and replan bumps it). Statuses are
// read live, so a step's progress never makes it stale. It gives the same
// answers as the plan's own methods (TestPlanIndexAgreesWithThePlan).
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
