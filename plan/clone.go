package plan

import "time"

// Clone returns a deep copy of p: no slice, map or pointer is shared with
// p, so edits can work on the copy and swap it in only when they succeed.
func (p Plan) Clone() Plan {
	q := p
	q.Steps = cloneSteps(p.Steps)
	q.Resources = cloneStrings(p.Resources)
	q.Risks = cloneSlice(p.Risks)
	q.UpdateHistory = cloneSlice(p.UpdateHistory)
	return q
}

// StepByID returns the step with the id, or nil when there is none. The
// pointer addresses the step inside p.Steps, so it is valid until the next
// edit.
func (p *Plan) StepByID(id string) *Step {
	if i := p.indexOf(id); i >= 0 {
		return &p.Steps[i]
	}
	return nil
}

// indexOf returns the position of the step id, or -1.
func (p *Plan) indexOf(id string) int {
	for i := range p.Steps {
		if p.Steps[i].ID == id {
			return i
		}
	}
	return -1
}

// Clone returns a deep copy of s.
func (s Step) Clone() Step {
	c := s
	c.DependsOn = cloneStrings(s.DependsOn)
	c.RequiredTools = cloneStrings(s.RequiredTools)
	c.Config = s.Config.Clone()
	c.StartedAt = cloneTime(s.StartedAt)
	c.EndedAt = cloneTime(s.EndedAt)
	if s.Result != nil {
		r := *s.Result
		r.FilesChanged = cloneSlice(s.Result.FilesChanged)
		c.Result = &r
	}
	return c
}

// Clone returns a deep copy of c, including tool parameters.
func (c StepConfig) Clone() StepConfig {
	var out StepConfig
	if c.LLM != nil {
		l := *c.LLM
		if c.LLM.Temperature != nil {
			t := *c.LLM.Temperature
			l.Temperature = &t
		}
		out.LLM = &l
	}
	if c.Tool != nil {
		t := *c.Tool
		t.Params = cloneParams(c.Tool.Params)
		out.Tool = &t
	}
	if c.Agent != nil {
		a := *c.Agent
		a.Tools = cloneStrings(c.Agent.Tools)
		out.Agent = &a
	}
	return out
}

func cloneSteps(in []Step) []Step {
	if in == nil {
		return nil
	}
	out := make([]Step, len(in))
	for i := range in {
		out[i] = in[i].Clone()
	}
	return out
}

func cloneStrings(in []string) []string { return cloneSlice(in) }

// cloneSlice copies a slice of plain values, keeping nil as nil and empty
// as empty (an empty dependsOn in an update patch means "clear").
func cloneSlice[T any](in []T) []T {
	if in == nil {
		return nil
	}
	out := make([]T, len(in))
	copy(out, in)
	return out
}

func cloneTime(t *time.Time) *time.Time {
	if t == nil {
		return nil
	}
	c := *t
	return &c
}

// cloneParams deep-copies tool parameters as JSON decoding produces them
// (maps, slices and scalars).
func cloneParams(in map[string]any) map[string]any {
	if in == nil {
		return nil
	}
	out := make(map[string]any, len(in))
	// Copying a map gives the same map whatever the iteration order.
	//workflowcheck:ignore
	for k, v := range in {
		out[k] = cloneValue(v)
	}
	return out
}

func cloneValue(v any) any {
	switch x := v.(type) {
	case map[string]any:
		return cloneParams(x)
	case []any:
		out := make([]any, len(x))
		for i := range x {
			out[i] = cloneValue(x[i])
		}
		return out
	case []string:
		return cloneStrings(x)
	}
	return v
}
