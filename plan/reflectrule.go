package plan

import "slices"

// ReflectionSkippedReason is the reason recorded for a reflection not
// asked of the model because its step did what it planned.
const ReflectionSkippedReason = "did what it planned: reflection skipped"

// ReflectionFacts is what the run knows around a finished step that the
// plan does not say, for NeedsReflection.
type ReflectionFacts struct {
	// EveryStep asks for a reflection after every step, whatever it did:
	// the complete execution mode.
	EveryStep bool
	// Pending names something the reflection should weigh beside the
	// step (a plan change waiting, a budget close to spent); empty when
	// nothing is.
	Pending string
}

// NeedsReflection reports whether the reflection after step id of p must
// ask the model, and why. It need not when the step did exactly what it
// planned, the only case where the model's answer is known in advance
// (continue):
//
//   - the step completed at its first try, with no fallback, clash or
//     conflict;
//   - its outcome is the one its action plans: an agent step answered on
//     its own (not stopped at its iteration limit, not ending the plan),
//     a tool step's call succeeded and the plan did not ask for its output
//     to be checked (validateOutput), an llm step answered;
//   - the plan did not change while it ran (the reflection weighs the
//     change against the result);
//   - no pending step's skip condition reads it (the plan branches on it);
//   - it is not the last step to run: after the last one the reflection is
//     the plan's one chance to find the goal short and add steps, or to
//     say why it is met, before the summary;
//   - facts hold nothing else to weigh, and do not ask for every step.
//
// A missing step or result needs the reflection: the caller's usual path
// handles what is out of the ordinary.
func NeedsReflection(p *Plan, id string, f ReflectionFacts) (bool, string) {
	if f.EveryStep {
		return true, "the execution mode reflects after every step"
	}
	if f.Pending != "" {
		return true, f.Pending
	}
	s := p.StepByID(id)
	if s == nil || s.Result == nil {
		return true, "the step has no result"
	}
	if why := departure(*s); why != "" {
		return true, why
	}
	if changedDuring(p, *s) {
		return true, "the plan changed while the step ran"
	}
	if why := branchedOn(p, id); why != "" {
		return true, why
	}
	if lastToRun(p, id) {
		return true, "the last step: the reflection may find the goal met or short"
	}
	return false, ReflectionSkippedReason
}

// departure says how step s departed from what it planned, "" when it
// did not.
func departure(s Step) string {
	r := s.Result
	switch {
	case s.Status != StepCompleted || !r.Success || r.Error != "":
		return "the step did not succeed"
	case r.Attempts > 1:
		return "the step was tried more than once"
	case r.FallbackUsed != "":
		return "a fallback ran in the step's place"
	case len(r.Clashes) > 0 || len(r.Conflicts) > 0:
		return "the step's files clashed with a step beside it"
	case r.EndedPlan:
		return "the step ended the plan"
	}
	switch s.Action {
	case ActionAgent:
		if r.IterationLimitReached {
			return "the agent stopped at its iteration limit"
		}
	case ActionTool:
		if s.Config.Tool != nil && s.Config.Tool.ValidateOutput {
			return "the plan asks for the tool's output to be checked"
		}
	case ActionLLM:
	default:
		return "the step's action is unknown"
	}
	return ""
}

// changedDuring reports whether p's update history has a change made
// since step s started.
func changedDuring(p *Plan, s Step) bool {
	if s.StartedAt == nil {
		return false
	}
	for _, u := range p.UpdateHistory {
		if !u.At.Before(*s.StartedAt) {
			return true
		}
	}
	return false
}

// branchedOn says which pending step's skip condition reads step id, ""
// when none does.
func branchedOn(p *Plan, id string) string {
	for _, s := range p.Steps {
		if s.Status != StepPending || s.SkipCondition == "" {
			continue
		}
		if ids, err := ConditionSteps(s.SkipCondition); err != nil || slices.Contains(ids, id) {
			return "the skip condition of step " + s.ID + " reads this step"
		}
	}
	return ""
}

// lastToRun reports whether no step but id is left to run: every other
// step is done, or a pending fallback nothing needs any more.
func lastToRun(p *Plan, id string) bool {
	unused := p.UnusedFallbacks()
	for _, s := range p.Steps {
		if s.ID == id || s.Status.Done() || slices.Contains(unused, s.ID) {
			continue
		}
		return false
	}
	return true
}
