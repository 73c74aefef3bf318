package plan

import "slices"

// IsFallbackOnly reports whether step id is named as another step's
// FallbackStepID. Such a step runs only in place of the step that failed,
// never on its own, so Ready leaves it out.
func (p *Plan) IsFallbackOnly(id string) bool {
	for _, s := range p.Steps {
		if s.ID != id && s.FallbackStepID == id {
			return true
		}
	}
	return false
}

// fallbackOnly is the set of fallback-only steps (IsFallbackOnly), built
// once for a walk over every step: asking IsFallbackOnly of each would
// cost the square of the plan's length.
func (p *Plan) fallbackOnly() map[string]bool {
	m := map[string]bool{}
	for i := range p.Steps {
		s := &p.Steps[i]
		if s.FallbackStepID != "" && s.FallbackStepID != s.ID {
			m[s.FallbackStepID] = true
		}
	}
	return m
}

// Ready returns, in plan order, the ids of pending steps that may run now:
// every dependency is completed or skipped, and the step is not
// fallback-only (see IsFallbackOnly). A step depending on an unknown id is
// never ready. Skip conditions are the caller's to evaluate.
func (p *Plan) Ready() []string {
	status := p.statusByID()
	fallbacks := p.fallbackOnly()
	var out []string
	for _, s := range p.Steps {
		if s.Status != StepPending || fallbacks[s.ID] {
			continue
		}
		ok := true
		for _, d := range s.DependsOn {
			if st := status[d]; st != StepCompleted && st != StepSkipped {
				ok = false
				break
			}
		}
		if ok {
			out = append(out, s.ID)
		}
	}
	return out
}

// Blocked returns, in plan order, the ids of pending steps that can never
// run: a dependency failed, was cancelled or names no step. It follows
// chains itself: a pending step that depends on a blocked step is blocked
// too, so the caller can cancel the whole list at once.
func (p *Plan) Blocked() []string {
	status := p.statusByID()
	blocked := map[string]bool{}
	for changed := true; changed; {
		changed = false
		for _, s := range p.Steps {
			if s.Status != StepPending || blocked[s.ID] {
				continue
			}
			for _, d := range s.DependsOn {
				st, known := status[d]
				if !known || st == StepFailed || st == StepCancelled || blocked[d] {
					blocked[s.ID] = true
					changed = true
					break
				}
			}
		}
	}
	var out []string
	for _, s := range p.Steps {
		if blocked[s.ID] {
			out = append(out, s.ID)
		}
	}
	return out
}

// UnusedFallbacks returns the pending fallback-only steps whose every
// primary step has ended without failing (completed, skipped or
// cancelled): they will never run, and the caller may skip them so the
// plan can finish.
func (p *Plan) UnusedFallbacks() []string {
	var out []string
	fallbacks := p.fallbackOnly()
	for _, f := range p.Steps {
		if f.Status != StepPending || !fallbacks[f.ID] {
			continue
		}
		unused := true
		for _, s := range p.Steps {
			if s.FallbackStepID == f.ID && s.ID != f.ID && (!s.Status.Done() || s.Status == StepFailed) {
				unused = false
				break
			}
		}
		if unused {
			out = append(out, f.ID)
		}
	}
	return out
}

func (p *Plan) statusByID() map[string]StepStatus {
	m := make(map[string]StepStatus, len(p.Steps))
	for _, s := range p.Steps {
		if _, dup := m[s.ID]; !dup {
			m[s.ID] = s.Status
		}
	}
	return m
}

// Held returns, in plan order, the pending steps a skip proposal about
// ids holds back until it is answered: the pending steps among ids and
// every pending step that depends on one of them, directly or through
// other steps. The other steps are free to run meanwhile: whatever the
// answer, it does not change them.
func (p *Plan) Held(ids []string) []string {
	held := map[string]bool{}
	for _, id := range ids {
		held[id] = true
	}
	for changed := true; changed; {
		changed = false
		for _, s := range p.Steps {
			if held[s.ID] {
				continue
			}
			for _, d := range s.DependsOn {
				if held[d] {
					held[s.ID] = true
					changed = true
					break
				}
			}
		}
	}
	var out []string
	for _, s := range p.Steps {
		if held[s.ID] && s.Status == StepPending {
			out = append(out, s.ID)
		}
	}
	return out
}

// ReadyExcept is Ready without the steps in held (see Held).
func (p *Plan) ReadyExcept(held []string) []string {
	var out []string
	for _, id := range p.Ready() {
		if !slices.Contains(held, id) {
			out = append(out, id)
		}
	}
	return out
}
