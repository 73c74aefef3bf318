package signals

// Bounds of what people send a run. Every accepted input stays in the
// run's state (feedback, answers, the plan's update history), travels in
// every continue-as-new and is answered by queries, so each is kept small;
// a run refuses larger inputs and says which bound they broke.
const (
	// MaxTextBytes bounds one free text: select and refine feedback, a
	// clarification answer, a confirm-skip note, an edit, pause or resume
	// reason.
	MaxTextBytes = 4 << 10
	// MaxEditBytes bounds the edits of one edit-plan request, as JSON.
	MaxEditBytes = 64 << 10
)
