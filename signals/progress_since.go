package signals

import (
	"encoding/json"
	"time"

	"github.com/planmode/planmode/plan"
)

// LoggedProgress is a Progress as an EventBatch carries it: its JSON
// leaves out every field that is zero, which is most of a plan's
// progress at any moment; it decodes as a Progress does.
type LoggedProgress Progress

// MarshalJSON writes p as Progress would, without its zero fields.
func (p LoggedProgress) MarshalJSON() ([]byte, error) {
	b, err := json.Marshal(Progress(p))
	if err != nil {
		return nil, err
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, err
	}
	return json.Marshal(withoutZeros(m))
}

// withoutZeros is m without the values that decode as zero: false, 0,
// "", a zero duration or time, and objects left empty.
func withoutZeros(m map[string]any) map[string]any {
	for k, v := range m {
		switch v := v.(type) {
		case map[string]any:
			if len(withoutZeros(v)) == 0 {
				delete(m, k)
			}
		case nil, bool, float64, string:
			if v == nil || v == false || v == 0.0 || v == "" || v == "0s" || v == "0001-01-01T00:00:00Z" {
				delete(m, k)
			}
		}
	}
	return m
}

// Since returns p, the progress a batch written at at carried, as it
// stands at now after later, the events of the batches the run wrote
// since, oldest first: their model usage added (a usage event is what one
// activity's calls used), the steps that started and ended since counted
// (the run writes its progress again whenever its plan changes
// otherwise), and the time since at counted as elapsed, or as paused
// while the plan is paused.
func (p Progress) Since(at, now time.Time, later []Event) Progress {
	for _, e := range later {
		switch e.Type {
		case EventUsage:
			var u plan.Usage
			if json.Unmarshal(e.Data, &u) == nil {
				p.Usage = p.Usage.Add(u)
			}
		case EventStepStarted, EventStepCompleted, EventStepFailed, EventStepSkipped:
			p = p.stepMoved(e)
		}
	}
	p.Tokens, p.CostUSD = p.Usage.TotalTokens, p.Usage.CostUSD
	if d := now.Sub(at); d > 0 && !p.Phase.Terminal() {
		if p.Paused {
			p.PausedFor += plan.Duration(d)
		} else {
			p.Elapsed += plan.Duration(d)
		}
	}
	return p
}

// stepMoved counts step event e: a step that started leaves the pending
// steps for the running ones and is the current step; one that ended
// leaves the running ones (a skipped one that never ran, the pending
// ones) for its final count. Its data says the percent done.
func (p Progress) stepMoved(e Event) Progress {
	t := &p.Totals
	from := &t.Running
	switch e.Type {
	case EventStepStarted:
		t.Pending, t.Running = max(t.Pending-1, 0), t.Running+1
		p.CurrentStep = e.Step
	case EventStepCompleted:
		t.Completed++
	case EventStepFailed:
		t.Failed++
	case EventStepSkipped:
		t.Skipped++
		if p.CurrentStep == nil || e.Step == nil || p.CurrentStep.ID != e.Step.ID {
			from = &t.Pending
		}
	}
	if e.Type != EventStepStarted {
		*from = max(*from-1, 0)
		if p.CurrentStep != nil && e.Step != nil && p.CurrentStep.ID == e.Step.ID {
			p.CurrentStep = nil
		}
	}
	var d struct {
		Percent *int `json:"percent"`
	}
	if json.Unmarshal(e.Data, &d) == nil && d.Percent != nil {
		p.Percent = *d.Percent
	}
	return p
}
