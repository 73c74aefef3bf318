package plan

import (
	"fmt"
	"slices"
)

// applyEdit performs one wire edit on q without the shared bookkeeping.
func (q *Plan) applyEdit(e Edit) ([]Update, error) {
	needStep := func() error {
		if e.Step == nil {
			return editErr(EditInvalidEdit, e.StepID, "%s needs a step", e.Op)
		}
		return nil
	}
	needID := func() error {
		if e.StepID == "" {
			return editErr(EditInvalidEdit, "", "%s needs a stepId", e.Op)
		}
		return nil
	}
	switch e.Op {
	case OpInsertAfter, OpInsertBefore, OpUpdate:
		if err := firstErr(needID(), needStep()); err != nil {
			return nil, err
		}
	case OpAppend:
		if err := needStep(); err != nil {
			return nil, err
		}
	case OpRemove, OpRemoveAfter:
		if err := needID(); err != nil {
			return nil, err
		}
	}
	switch e.Op {
	case OpInsertAfter:
		return q.insertAt(e.StepID, 1, *e.Step)
	case OpInsertBefore:
		return q.insertAt(e.StepID, 0, *e.Step)
	case OpAppend:
		return q.appendStep(*e.Step)
	case OpRemove:
		return q.remove(e.StepID)
	case OpRemoveAfter:
		return q.removeAfter(e.StepID)
	case OpUpdate:
		return q.update(e.StepID, *e.Step)
	}
	return nil, editErr(EditInvalidEdit, e.StepID, "unknown edit op %q", e.Op)
}

func firstErr(errs ...error) error {
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

// insertAt inserts s at the anchor's position plus offset (0 before, 1
// after).
func (q *Plan) insertAt(anchor string, offset int, s Step) ([]Update, error) {
	i := q.indexOf(anchor)
	if i < 0 {
		return nil, editErr(EditStepNotFound, anchor, "no such step to insert next to")
	}
	n, err := q.prepareNew(s)
	if err != nil {
		return nil, err
	}
	q.Steps = slices.Insert(q.Steps, i+offset, n)
	return []Update{{Type: UpdateInsert, StepID: n.ID}}, nil
}

func (q *Plan) appendStep(s Step) ([]Update, error) {
	n, err := q.prepareNew(s)
	if err != nil {
		return nil, err
	}
	q.Steps = append(q.Steps, n)
	return []Update{{Type: UpdateAppend, StepID: n.ID}}, nil
}

// prepareNew returns a pending copy of s with an id that is free.
func (q *Plan) prepareNew(s Step) (Step, error) {
	n := s.Clone()
	switch {
	case n.ID == "":
		n.ID = q.NextID()
	case q.indexOf(n.ID) >= 0:
		return Step{}, editErr(EditDuplicateStepID, n.ID, "a step with this id already exists")
	}
	n.Status = StepPending
	n.Result, n.StartedAt, n.EndedAt, n.Note = nil, nil, nil, ""
	return n, nil
}

// NextID returns a fresh step id "s<N>" and advances NextStepSeq past it.
// The id is used by no step and by no entry of the update history, so a
// removed step's id is never given to a new one.
func (p *Plan) NextID() string {
	used := make(map[string]bool, len(p.Steps)+len(p.UpdateHistory))
	for _, s := range p.Steps {
		used[s.ID] = true
	}
	for _, u := range p.UpdateHistory {
		used[u.StepID] = true
	}
	if p.NextStepSeq < 1 {
		p.NextStepSeq = 1
	}
	for {
		id := fmt.Sprintf("s%d", p.NextStepSeq)
		p.NextStepSeq++
		if !used[id] {
			return id
		}
	}
}

func (q *Plan) remove(id string) ([]Update, error) {
	i := q.indexOf(id)
	if i < 0 {
		return nil, editErr(EditStepNotFound, id, "no such step to remove")
	}
	if st := q.Steps[i].Status; locked(st) {
		return nil, editErr(EditStepLocked, id, "step is %s and can no longer be removed", st)
	}
	q.drop(i)
	return []Update{{Type: UpdateRemove, StepID: id}}, nil
}

func (q *Plan) removeAfter(id string) ([]Update, error) {
	i := q.indexOf(id)
	if i < 0 {
		return nil, editErr(EditStepNotFound, id, "no such step to remove after")
	}
	var gone []string
	for _, s := range q.Steps[i+1:] {
		switch {
		case s.Status == StepRunning || s.Status == StepRetrying:
			return nil, editErr(EditStepLocked, s.ID, "step is %s: cannot remove the steps after %q", s.Status, id)
		case !locked(s.Status):
			gone = append(gone, s.ID)
		}
	}
	if len(gone) == 0 {
		return nil, editErr(EditInvalidEdit, id, "no pending step after it to remove")
	}
	ups := make([]Update, 0, len(gone))
	for _, g := range gone {
		q.drop(q.indexOf(g))
		ups = append(ups, Update{Type: UpdateRemove, StepID: g})
	}
	return ups, nil
}

// drop deletes step i, rewiring the steps that depended on it to its own
// dependencies and clearing fallbacks that named it.
func (q *Plan) drop(i int) {
	gone := q.Steps[i]
	q.Steps = slices.Delete(q.Steps, i, i+1)
	for k := range q.Steps {
		s := &q.Steps[k]
		if slices.Contains(s.DependsOn, gone.ID) {
			s.DependsOn = rewire(s.DependsOn, gone.ID, gone.DependsOn, s.ID)
		}
		if s.FallbackStepID == gone.ID {
			s.FallbackStepID = ""
		}
		if locked(s.Status) && mentions(s.SkipCondition, gone.ID) {
			s.SkipCondition = ""
		}
	}
}

// mentions reports whether the skip condition expr names step id. A
// locked step's condition has served its purpose and is dropped when it
// names a removed step; a pending step's is kept, so validation refuses
// the removal instead of silently changing when the step runs.
func mentions(expr, id string) bool {
	if expr == "" {
		return false
	}
	refs, err := ConditionSteps(expr)
	return err == nil && slices.Contains(refs, id)
}

// rewire replaces gone in deps by its dependencies, without duplicates and
// without self.
func rewire(deps []string, gone string, inherited []string, self string) []string {
	out := make([]string, 0, len(deps)+len(inherited))
	add := func(d string) {
		if d != self && d != gone && !slices.Contains(out, d) {
			out = append(out, d)
		}
	}
	for _, d := range deps {
		if d == gone {
			for _, in := range inherited {
				add(in)
			}
			continue
		}
		add(d)
	}
	return out
}
