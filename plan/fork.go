package plan

import (
	"fmt"
	"slices"
)

// ForkSteps returns the steps a plan forked from p after step id goes on
// with, and the manifest of the files it starts from: every step that had
// not completed or been skipped when step id ended — later steps, steps
// that failed, steps never run, and a step that ended at the same moment
// (its files may have merged after step id's: it runs again rather than be
// lost) — as fresh pending steps with the same
// ids, configs and order, their dependencies on the steps done by then
// (whose changes those files hold) dropped. The step itself must have
// completed, and its result must name its files (StepResult.Manifest).
func ForkSteps(p *Plan, id string) ([]Step, string, error) {
	if p == nil {
		return nil, "", fmt.Errorf("fork: the plan has not been chosen yet")
	}
	at := slices.IndexFunc(p.Steps, func(s Step) bool { return s.ID == id })
	if at < 0 {
		return nil, "", fmt.Errorf("fork: the plan has no step %q", id)
	}
	from := p.Steps[at]
	if from.Status != StepCompleted || from.Result == nil || from.Result.Manifest == "" {
		return nil, "", fmt.Errorf("fork: step %s is %s and has no recorded files: a fork starts after a completed "+
			"step whose files were recorded", id, from.Status)
	}
	done := map[string]bool{id: true}
	for _, s := range p.Steps {
		settled := s.Status == StepCompleted || s.Status == StepSkipped
		if settled && s.EndedAt != nil && from.EndedAt != nil && s.EndedAt.Before(*from.EndedAt) {
			done[s.ID] = true
		}
	}
	var steps []Step
	for _, s := range p.Steps {
		if done[s.ID] {
			continue
		}
		fresh := s
		fresh.Status, fresh.Result, fresh.StartedAt, fresh.EndedAt, fresh.Note = StepPending, nil, nil, nil, ""
		fresh.DependsOn = nil
		for _, d := range s.DependsOn {
			if !done[d] {
				fresh.DependsOn = append(fresh.DependsOn, d)
			}
		}
		steps = append(steps, fresh)
	}
	return steps, from.Result.Manifest, nil
}
