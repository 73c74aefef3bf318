package activities

import (
	"fmt"

	"github.com/planmode/planmode/llm"
	"github.com/planmode/planmode/plan"
)

// ActedOnResultBytes is the head an agent turn keeps of a tool result the
// model has already answered with a later turn. The newest results go
// whole: they are what this turn decides on.
const ActedOnResultBytes = 400

// actedOnView returns the transcript an agent turn sends: the tool
// results that come before the transcript's last assistant message (the
// model read them whole and acted on them) cut to a head of
// ActedOnResultBytes, saying how long they were; the rest as it is.
// Each turn of a long step otherwise sends every file it ever read
// again: in a step that reads a file and then writes one, the read was
// most of the last turn's prompt. t itself is left alone.
func actedOnView(t []Message) []Message {
	last := -1
	for i, m := range t {
		if m.Role == llm.RoleAssistant {
			last = i
		}
	}
	var out []Message
	for i, m := range t {
		if i < last && m.Role == llm.RoleTool && len(m.Content) > ActedOnResultBytes {
			if out == nil {
				out = make([]Message, len(t))
				copy(out, t)
			}
			head := plan.TruncateBytes(m.Content, ActedOnResultBytes)
			out[i].Content = head + fmt.Sprintf("\n[cut here: the whole result, %d bytes, was read at an earlier turn]",
				len(m.Content))
		}
	}
	if out == nil {
		return t
	}
	return out
}

// laterTurnContext is the step context a turn after the first sends: the
// goal, the step, its position and the steps after it, but not the
// earlier steps' results (Before's digests and the older steps' summary),
// which the first turn showed and the model used to begin; only their
// count. From the second turn on the step's own transcript is what the
// model works from, and every turn of a step paid for those results
// again.
func laterTurnContext(sc plan.StepContext, iteration int) plan.StepContext {
	if iteration <= 1 || (len(sc.Before) == 0 && sc.Summary == "") {
		return sc
	}
	sc.EarlierCount += len(sc.Before)
	sc.Before, sc.Summary = nil, ""
	return sc
}
