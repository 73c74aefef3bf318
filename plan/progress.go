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

// Progress is a read-only view of a plan's progress and metrics: the
// counts, shares and estimates the queries, the Web UI and the Result
// show. It reads the plan when asked, so it is always current.
type Progress struct{ p *Plan }

// Progress returns the view of p's progress.
func (p *Plan) Progress() Progress { return Progress{p: p} }

// Totals counts p's steps by status; retrying steps count as running and
// steps without a status as pending.
func (g Progress) Totals() Totals {
	p := g.p
	t := Totals{Total: len(p.Steps)}
	for i := range p.Steps {
		s := &p.Steps[i]
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
func (g Progress) Percent() int {
	p := g.p
	t := g.Totals()
	if t.Total == 0 {
		if p.Status == PlanCompleted {
			return 100
		}
		return 0
	}
	return t.Done() * 100 / t.Total
}

// Metrics sums the step results into the plan's execution metrics: steps by
// status, files, lines, commands, errors and warnings. Files, lines and
// commands count for every step with a result, failed ones included, since
// a failed step may still have changed the workspace. Errors are failed
// steps; warnings are steps whose agent stopped at its iteration limit.
func (g Progress) Metrics() Metrics {
	p := g.p
	var m Metrics
	for i := range p.Steps {
		s := &p.Steps[i]
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
func (g Progress) EstimatedRemaining() Duration {
	p := g.p
	var d Duration
	for i := range p.Steps {
		s := &p.Steps[i]
		if !s.Status.Done() {
			d += s.Estimated
		}
	}
	return d
}

// RescuedBy names the fallback step that succeeded in this step's place
// after it failed, or is empty when no fallback rescued it.
func (s Step) RescuedBy() string {
	if s.Result == nil || !s.Result.Success {
		return ""
	}
	return s.Result.FallbackUsed
}

// WillRun reports whether step s counts as work the plan does: it is not
// skipped, not cancelled before it started, and not a fallback-only step
// still waiting for a failure to stand in for (see IsFallbackOnly).
func (g Progress) WillRun(s Step) bool {
	p := g.p
	return willRun(s, p.IsFallbackOnly(s.ID))
}

// willRun is WillRun for a step known to be fallback-only or not.
func willRun(s Step, fallbackOnly bool) bool {
	switch {
	case s.Status == StepSkipped:
		return false
	case s.Status == StepCancelled && s.StartedAt == nil:
		return false
	case (s.Status == StepPending || s.Status == "") && fallbackOnly:
		return false
	}
	return true
}

// PercentOfWork is the share of the steps that will run (WillRun) that
// completed, 0 to 100, rounded down. Skipped steps, steps cancelled
// before they started and unused fallbacks leave the denominator, so they
// neither count as done nor hold the figure below 100; a step that failed
// or was cancelled while running stays in it undone, so a plan that
// failed says how far it got. With no step left to run it is 100 once
// nothing is pending or running, 0 before.
func (g Progress) PercentOfWork() int {
	p := g.p
	done, total, open := g.work()
	if total == 0 {
		if open || (len(p.Steps) == 0 && p.Status != PlanCompleted) {
			return 0
		}
		return 100
	}
	return done * 100 / total
}

// WorkDone counts the steps that will run (WillRun) and those of them
// that completed.
func (g Progress) WorkDone() (done, total int) {
	done, total, _ = g.work()
	return done, total
}

// work is WorkDone, and whether a step is not done yet.
func (g Progress) work() (done, total int, open bool) {
	p := g.p
	fallbacks := p.fallbackOnly()
	for i := range p.Steps {
		s := &p.Steps[i]
		if !s.Status.Done() {
			open = true
		}
		if !willRun(*s, fallbacks[s.ID]) {
			continue
		}
		total++
		if s.Status == StepCompleted {
			done++
		}
	}
	return done, total, open
}

// MeasuredRemaining estimates the time left from the steps that ran: the
// mean duration of the finished ones (completed or failed, with a
// measured duration) times the steps still to run (WillRun and not done,
// running ones included), divided by the effective parallelism: at most
// parallelism steps run at once, and never more than remain. Zero when
// nothing finished yet or nothing remains.
func (g Progress) MeasuredRemaining(parallelism int) Duration {
	p := g.p
	var sum Duration
	finished, left := 0, 0
	fallbacks := p.fallbackOnly()
	for i := range p.Steps {
		s := &p.Steps[i]
		switch {
		case (s.Status == StepCompleted || s.Status == StepFailed) && s.Result != nil && s.Result.Duration > 0:
			sum += s.Result.Duration
			finished++
		case !s.Status.Done() && willRun(*s, fallbacks[s.ID]):
			left++
		}
	}
	if finished == 0 || left == 0 {
		return 0
	}
	width := max(1, min(parallelism, left))
	return sum / Duration(finished) * Duration(left) / Duration(width)
}

// Remaining is the time left: the model's estimates of the steps not done
// when it gave any (EstimatedRemaining), otherwise MeasuredRemaining.
func (g Progress) Remaining(parallelism int) Duration {
	if d := g.EstimatedRemaining(); d > 0 {
		return d
	}
	return g.MeasuredRemaining(parallelism)
}
