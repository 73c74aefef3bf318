package workflows

import (
	"encoding/json"
	"fmt"

	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"

	"github.com/planmode/planmode/signals"
)

// tooLong refuses a free text longer than signals.MaxTextBytes, naming it.
func tooLong(what, text string) error {
	if len(text) > signals.MaxTextBytes {
		return reject(signals.ErrorTypeTooLarge, "%s is %d bytes: at most %d bytes", what, len(text), signals.MaxTextBytes)
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
		return reject(signals.ErrorTypeInvalidEdit, "edits: %v", err)
	}
	if len(b) > signals.MaxEditBytes {
		return reject(signals.ErrorTypeTooLarge, "edits are %d bytes of JSON: at most %d bytes", len(b), signals.MaxEditBytes)
	}
	return nil
}

// historyBudget bounds the history a run lets its steps grow: events and
// bytes (zero: no bound). See defaultHistoryBudget.
type historyBudget struct {
	events int
	bytes  int
}

// defaultHistoryBudget is half of what Temporal allows a run (it warns at
// 10K events or 10 MB and terminates the run at 50K or 50 MB). A run
// continues as new at step boundaries from defaultHistoryLimit on, so only
// a step that goes on and on (a long agent loop, retries) or a run that
// cannot continue as new meanwhile (a step is running, the run is paused,
// halted or waits for a confirmation) gets here; it stops with room left
// for the summary and the end.
var defaultHistoryBudget = historyBudget{events: 25_000, bytes: 25 << 20}

// historyExhausted returns why the history is past budget b, or "" when
// it is not.
func historyExhausted(ctx workflow.Context, b historyBudget) string {
	info := workflow.GetInfo(ctx)
	n, size := info.GetCurrentHistoryLength(), info.GetCurrentHistorySize()
	if (b.events > 0 && n >= b.events) || (b.bytes > 0 && size >= b.bytes) {
		return fmt.Sprintf("history budget exhausted: %d events, %d bytes (budget %d events, %d bytes); "+
			"the plan stops long before Temporal would terminate it", n, size, b.events, b.bytes)
	}
	return ""
}

// invalidRequest fails the workflow for err, without retries.
func invalidRequest(err error) error {
	return temporal.NewNonRetryableApplicationError(err.Error(), signals.ErrorTypeInvalidRequest, err)
}
