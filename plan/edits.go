package plan

import "fmt"

// Every edit below, whether a person sends it (edit-plan) or reflection
// makes it while the plan runs, follows the same rules:
//
//   - it works on a Clone and replaces p only when it succeeds, so a
//     refused edit leaves p exactly as it was and returns an *EditError
//     (possibly wrapped);
//   - steps that are running, retrying or done (completed, failed, skipped,
//     cancelled) are locked: they cannot be changed, removed or skipped;
//   - new steps start pending, with no result; a step without an id gets
//     "s<N>" from Plan.NextStepSeq, skipping any id used in the plan or in
//     its update history so that an id never names two different steps;
//   - the result is validated within c.Within and the edit is refused when
//     Validate reports an error the plan did not have before (unknown
//     dependency, cycle, missing config, a bound of limits.go broken...),
//     so an already-invalid plan can still be repaired;
//   - steps are renumbered 1..n, Version goes up by one, UpdatedAt becomes
//     c.At and every change is appended to UpdateHistory with c's actor and
//     reason (ActorSystem when c names none).

// locked reports whether a step in status s may no longer be edited. An
// empty status counts as pending.
func locked(s StepStatus) bool {
	return s != StepPending && s != ""
}

// InsertAfter inserts s right after the step afterID; afterID may be in
// any status.
func (p *Plan) InsertAfter(afterID string, s Step, c Change) error {
	return p.commit(c, func(q *Plan) ([]Update, error) { return q.insertAt(afterID, 1, s) })
}

// InsertBefore inserts s right before the step beforeID. beforeID may be
// in any status, even done: position is display order and a tie-breaker
// among ready steps, while dependencies decide when a step may run, so a
// new pending step placed before a completed one simply runs when its own
// dependencies allow.
func (p *Plan) InsertBefore(beforeID string, s Step, c Change) error {
	return p.commit(c, func(q *Plan) ([]Update, error) { return q.insertAt(beforeID, 0, s) })
}

// Append adds s at the end of the plan.
func (p *Plan) Append(s Step, c Change) error {
	return p.commit(c, func(q *Plan) ([]Update, error) { return q.appendStep(s) })
}

// Remove removes the pending step id. Steps that depended on it inherit
// its dependencies, so the order it imposed is kept, and fallbacks that
// named it are cleared.
func (p *Plan) Remove(id string, c Change) error {
	return p.commit(c, func(q *Plan) ([]Update, error) { return q.remove(id) })
}

// RemoveAfter removes every pending step after id, keeping later steps
// that are already done. It refuses when a later step is running or
// retrying, and when there is nothing to remove. One update per removed
// step is recorded, all under the same new version.
func (p *Plan) RemoveAfter(id string, c Change) error {
	return p.commit(c, func(q *Plan) ([]Update, error) { return q.removeAfter(id) })
}

// UpdateStep changes the non-zero fields of patch on the pending step id:
// title, description, kind, action, each config part that is set,
// dependsOn and requiredTools (a non-nil slice replaces, an empty one
// clears), maxRetries, retryDelay, skippable (it can only be turned on),
// skipCondition, fallbackStepId and estimated. The id, status, result and
// times are never changed. A patch that sets nothing is refused.
func (p *Plan) UpdateStep(id string, patch Step, c Change) error {
	return p.commit(c, func(q *Plan) ([]Update, error) { return q.update(id, patch) })
}

// Apply applies edits in order, all or nothing: one refused edit leaves p
// unchanged and the error names the edit's position. The batch bumps
// Version once and records one update per edit under that version;
// validation runs on the final result, so a batch may insert a step before
// inserting the one it depends on.
func (p *Plan) Apply(edits []Edit, c Change) error {
	if len(edits) == 0 {
		return editErr(EditInvalidEdit, "", "no edits to apply")
	}
	return p.commit(c, func(q *Plan) ([]Update, error) {
		var all []Update
		for k, e := range edits {
			ups, err := q.applyEdit(e)
			if err != nil {
				return nil, fmt.Errorf("edit %d (%s): %w", k+1, e.Op, err)
			}
			all = append(all, ups...)
		}
		return all, nil
	})
}

// Replan replaces every pending step with steps, appended after the steps
// that are running or done, which stay as they are. References from the
// kept steps to removed ids are dropped. The new steps may reuse the ids
// of the steps they replace.
func (p *Plan) Replan(steps []Step, c Change) error {
	return p.commit(c, func(q *Plan) ([]Update, error) { return q.replan(steps) })
}

// Skip marks the pending steps ids skipped, with c.Reason as their note
// and c.At as their end time. It refuses unknown ids and steps that are
// not pending; repeated ids count once.
func (p *Plan) Skip(ids []string, c Change) error {
	if len(ids) == 0 {
		return editErr(EditInvalidEdit, "", "no steps to skip")
	}
	return p.commit(c, func(q *Plan) ([]Update, error) { return q.skip(ids, c) })
}

// MaxUpdateHistory bounds the update history a plan keeps: the plan travels
// in queries, results and continue-as-new, so the oldest entries give way
// (counted in UpdateHistoryDropped) rather than let it grow without end.
const MaxUpdateHistory = 500

// commit runs fn on a clone of p, checks the result and swaps it in with
// the bookkeeping every edit shares.
func (p *Plan) commit(c Change, fn func(q *Plan) ([]Update, error)) error {
	q := p.Clone()
	ups, err := fn(&q)
	if err != nil {
		return err
	}
	q.renumber()
	if err := newErrors(*p, q, c.Within); err != nil {
		return err
	}
	q.Version++
	q.UpdatedAt = c.At
	actor := c.Actor
	if actor == "" {
		actor = ActorSystem
	}
	for _, u := range ups {
		u.At, u.Actor, u.Reason, u.Version = c.At, actor, c.Reason, q.Version
		q.UpdateHistory = append(q.UpdateHistory, u)
	}
	if over := len(q.UpdateHistory) - MaxUpdateHistory; over > 0 {
		q.UpdateHistory = append([]Update(nil), q.UpdateHistory[over:]...)
		q.UpdateHistoryDropped += over
	}
	*p = q
	return nil
}

// newErrors returns an EditInvalidPlan error listing the validation errors
// of after, within lim, that before did not have, or nil.
func newErrors(before, after Plan, lim Limits) error {
	key := func(i Issue) string { return i.Code + "\x00" + i.StepID + "\x00" + i.Message }
	had := map[string]int{}
	for _, i := range Validate(before, lim).Errors {
		had[key(i)]++
	}
	var fresh []Issue
	for _, i := range Validate(after, lim).Errors {
		if had[key(i)] > 0 {
			had[key(i)]--
			continue
		}
		fresh = append(fresh, i)
	}
	if len(fresh) == 0 {
		return nil
	}
	e := editErr(EditInvalidPlan, fresh[0].StepID, "edit would make the plan invalid: %s", fresh[0].Message)
	e.Issues = fresh
	return e
}

// renumber sets every step's Number to its 1-based position.
func (p *Plan) renumber() {
	for i := range p.Steps {
		p.Steps[i].Number = i + 1
	}
}
