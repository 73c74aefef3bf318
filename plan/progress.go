package plan

// Totals counts steps by status.
type Totals struct {
	Total     int `json:"total"`
	Pending   int `json:"pending"`
	Running   int `json:"running"`
	Completed int `json:"completed"`
	Failed    int `json:"failed"`
	Skipped   int `json:"skipped"`
	Cancelled int `json:"cancelled"`
}

// Done is the number of steps in a final status.
func (t Totals) Done() int { return t.Completed + t.Failed + t.Skipped + t.Cancelled }

// Totals counts p's steps by status; retrying steps count as running and
// steps without a status as pending.
func (p *Plan) Totals() Totals {
	t := Totals{Total: len(p.Steps)}
	for _, s := range p.Steps {
		switch s.Status {
		case StepRunning, StepRetrying:
			t.Running++
		case StepCompleted:
			t.Completed++
		case StepFailed:
			t.Failed++
		case StepSkipped:
			t.Skipped++
		case StepCancelled:
			t.Cancelled++
		default:
			t.Pending++
		}
	}
	return t
}

// Percent is the share of steps in a final status, 0 to 100, rounded down
// so that 100 means every step is done. An empty plan is 100 only when the
// plan itself is completed (a run answered without steps), 0 otherwise.
func (p *Plan) Percent() int {
	t := p.Totals()
	if t.Total == 0 {
		if p.Status == PlanCompleted {
			return 100
		}
		return 0
	}
	return t.Done() * 100 / t.Total
}

// Metrics sums the step results into seed 000's execution metrics. Files,
// lines and commands count for every step with a result, failed ones
// included, since a failed step may still have changed the workspace.
// Errors are failed steps; warnings are steps whose agent stopped at its
// iteration limit.
func (p *Plan) Metrics() Metrics {
	var m Metrics
	for _, s := range p.Steps {
		switch s.Status {
		case StepCompleted:
			m.StepsCompleted++
		case StepFailed:
			m.StepsFailed++
			m.Errors++
		case StepSkipped:
			m.StepsSkipped++
		}
		r := s.Result
		if r == nil {
			continue
		}
		for _, f := range r.FilesChanged {
			switch f.Op {
			case FileCreated:
				m.FilesCreated++
			case FileModified:
				m.FilesModified++
			case FileDeleted:
				m.FilesDeleted++
			}
			m.LinesChanged += f.LinesAdded + f.LinesRemoved
		}
		m.CommandsRun += r.CommandsRun
		if r.IterationLimitReached {
			m.Warnings++
		}
	}
	return m
}

// EstimatedRemaining sums the estimates of steps not done (pending,
// running, retrying), fallback-only steps included: the figure errs on
// the long side.
func (p *Plan) EstimatedRemaining() Duration {
	var d Duration
	for _, s := range p.Steps {
		if !s.Status.Done() {
			d += s.Estimated
		}
	}
	return d
}
