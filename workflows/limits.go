package workflows

import (
	"encoding/json"

	"github.com/planmode/planmode/signals"
)

// tooLong refuses a free text longer than signals.MaxTextBytes, naming it.
func tooLong(what, text string) error {
	if len(text) > signals.MaxTextBytes {
		return reject(signals.RejectTooLarge, "%s is %d bytes: at most %d bytes", what, len(text), signals.MaxTextBytes)
	}
	return nil
}

// editTooLarge refuses an edit request larger than the edit bounds: its
// reason as a free text, its edits as JSON.
func editTooLarge(req signals.EditPlanRequest) error {
	if err := tooLong("reason", req.Reason); err != nil {
		return err
	}
	// Encoding a struct is deterministic (map keys are sorted); only its
	// size is used.
	b, err := json.Marshal(req.Edits) //workflowcheck:ignore
	if err != nil {
		return reject(signals.RejectInvalidEdit, "edits: %v", err)
	}
	if len(b) > signals.MaxEditBytes {
		return reject(signals.RejectTooLarge, "edits are %d bytes of JSON: at most %d bytes", len(b), signals.MaxEditBytes)
	}
	return nil
}

