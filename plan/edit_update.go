package plan

import "slices"

func (q *Plan) update(id string, patch Step) ([]Update, error) {
	i := q.indexOf(id)
	if i < 0 {
		return nil, editErr(EditStepNotFound, id, "no such step to update")
	}
	if st := q.Steps[i].Status; locked(st) {
		return nil, editErr(EditStepLocked, id, "step is %s and can no longer be changed", st)
	}
	if !applyPatch(&q.Steps[i], patch.Clone()) {
		return nil, editErr(EditInvalidEdit, id, "update sets no field")
	}
	return []Update{{Type: UpdateUpdate, StepID: id}}, nil
}

// applyPatch copies the non-zero fields of p onto s and reports whether it
// set any.
func applyPatch(s *Step, p Step) bool {
	changed := false
	set := func(ok bool, f func()) {
		if ok {
			f()
			changed = true
		}
	}
	set(p.Title != "", func() { s.Title = p.Title })
	set(p.Description != "", func() { s.Description = p.Description })
	set(p.Kind != "", func() { s.Kind = p.Kind })
	set(p.Action != "", func() { s.Action = p.Action })
	set(p.Config.LLM != nil, func() { s.Config.LLM = p.Config.LLM })
	set(p.Config.Tool != nil, func() { s.Config.Tool = p.Config.Tool })
	set(p.Config.Agent != nil, func() { s.Config.Agent = p.Config.Agent })
	set(p.DependsOn != nil, func() { s.DependsOn = p.DependsOn })
	set(p.RequiredTools != nil, func() { s.RequiredTools = p.RequiredTools })
	set(p.MaxRetries != 0, func() { s.MaxRetries = p.MaxRetries })
	set(p.RetryDelay != 0, func() { s.RetryDelay = p.RetryDelay })
	set(p.Skippable, func() { s.Skippable = true })
	set(p.SkipCondition != "", func() { s.SkipCondition = p.SkipCondition })
	set(p.FallbackStepID != "", func() { s.FallbackStepID = p.FallbackStepID })
	set(p.Estimated != 0, func() { s.Estimated = p.Estimated })
	return changed
}

func (q *Plan) replan(steps []Step) ([]Update, error) {
	kept := make([]Step, 0, len(q.Steps))
	for _, s := range q.Steps {
		if locked(s.Status) {
			kept = append(kept, s)
		}
	}
	q.Steps = kept
	for _, s := range steps {
		n, err := q.prepareNew(s)
		if err != nil {
			return nil, err
		}
		q.Steps = append(q.Steps, n)
	}
	for k := range kept {
		s := &q.Steps[k]
		s.DependsOn = slices.DeleteFunc(s.DependsOn, func(d string) bool { return q.indexOf(d) < 0 })
		if s.FallbackStepID != "" && q.indexOf(s.FallbackStepID) < 0 {
			s.FallbackStepID = ""
		}
		if refs, err := ConditionSteps(s.SkipCondition); s.SkipCondition != "" && err == nil &&
			slices.ContainsFunc(refs, func(id string) bool { return q.indexOf(id) < 0 }) {
			s.SkipCondition = ""
		}
	}
	return []Update{{Type: UpdateReplan}}, nil
}

func (q *Plan) skip(ids []string, c Change) ([]Update, error) {
	var ups []Update
	done := map[string]bool{}
	for _, id := range ids {
		if done[id] {
			continue
		}
		done[id] = true
		i := q.indexOf(id)
		if i < 0 {
			return nil, editErr(EditStepNotFound, id, "no such step to skip")
		}
		s := &q.Steps[i]
		if locked(s.Status) {
			return nil, editErr(EditStepLocked, id, "step is %s: only pending steps can be skipped", s.Status)
		}
		at := c.At
		s.Status, s.Note, s.EndedAt = StepSkipped, c.Reason, &at
		ups = append(ups, Update{Type: UpdateSkip, StepID: id})
	}
	return ups, nil
}
