package plan

// Mode is what a run is doing at large, coarser than its Phase: planning
// (Plan), acting on the workspace (Act), paused in the middle of acting
// (Paused), or neither (Normal). The progress query and the control
// updates report it; CanTransition says which changes are allowed.
type Mode string

// Modes.
const (
	ModeNormal Mode = "normal"
	ModePlan   Mode = "plan"
	ModeAct    Mode = "act"
	ModePaused Mode = "paused"
)

// Phase is where a PlanMode run is in its cycle.
type Phase string

// Phases, in the order a run passes through them.
const (
	// PhaseAwaitingWorkspace: another open plan holds the workspace and
	// the request said to wait for it (onBusy wait).
	PhaseAwaitingWorkspace Phase = "awaiting-workspace"
	PhaseClarifying        Phase = "clarifying"
	PhasePlanning          Phase = "planning"
	PhaseAwaitingSelection Phase = "awaiting-selection"
	PhaseExecuting         Phase = "executing"
	PhaseReflecting        Phase = "reflecting"
	PhaseSummarizing       Phase = "summarizing"
	PhaseCompleted         Phase = "completed"
	PhaseFailed            Phase = "failed"
	PhaseCancelled         Phase = "cancelled"
)

// Terminal reports whether the phase ends a run.
func (p Phase) Terminal() bool {
	return p == PhaseCompleted || p == PhaseFailed || p == PhaseCancelled
}

// Mode returns the mode a phase belongs to: clarifying, planning and
// selection are Plan; executing and reflecting are Act; the rest Normal.
// Paused is not a phase but a state laid over Act (see ModeMachine).
func (p Phase) Mode() Mode {
	switch p {
	case PhaseClarifying, PhasePlanning, PhaseAwaitingSelection:
		return ModePlan
	case PhaseExecuting, PhaseReflecting:
		return ModeAct
	}
	return ModeNormal
}

// transitions lists the allowed mode changes: Normal ↔ Plan ↔ Act ↔ Paused,
// plus Act → Normal when a run ends and Plan → Normal when it is answered
// or cancelled before execution, and Paused → Normal on cancellation.
var transitions = map[Mode][]Mode{
	ModeNormal: {ModePlan},
	ModePlan:   {ModeNormal, ModeAct},
	ModeAct:    {ModePlan, ModePaused, ModeNormal},
	ModePaused: {ModeAct, ModeNormal},
}

// CanTransition reports whether a run may move from one mode to another.
// Staying in the same mode is always allowed.
func CanTransition(from, to Mode) bool {
	if from == to {
		return true
	}
	for _, m := range transitions[from] {
		if m == to {
			return true
		}
	}
	return false
}
