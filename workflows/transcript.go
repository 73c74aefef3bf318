package workflows

import (
	"fmt"

	"github.com/planmode/planmode/activities"
	"github.com/planmode/planmode/plan"
)

// transcriptWhole is how many of an agent step's latest transcript
// messages each turn is sent whole: a few turns' calls and results.
//
// Every turn's input is recorded in history, so sending the whole
// transcript each turn would grow a step's history with the square of its
// turns. Older messages keep a head of their content (plan.KeptOutputBytes)
// and a note of what was left out, and tool-call arguments longer than
// that are replaced by a note, so a turn's input grows by a bounded amount
// per earlier message. The whole of each message is in history once, in
// the turn or tool activity that produced it.
const transcriptWhole = 8

// boundTranscript returns the transcript an agent turn is sent: t with its
// older messages cut (see transcriptWhole). The pairing of tool calls and
// results is kept; t itself is left alone.
func boundTranscript(t []activities.Message) []activities.Message {
	if len(t) <= transcriptWhole {
		return t
	}
	out := make([]activities.Message, len(t))
	copy(out, t)
	for i := range out[:len(out)-transcriptWhole] {
		m := &out[i]
		if n := len(m.Content); n > plan.KeptOutputBytes {
			m.Content = plan.TruncateBytes(m.Content, plan.KeptOutputBytes) +
				fmt.Sprintf("\n[%d bytes of this earlier message left out]", n-len(plan.TruncateBytes(m.Content, plan.KeptOutputBytes)))
		}
		if len(m.ToolCalls) == 0 {
			continue
		}
		calls := make([]activities.ToolCall, len(m.ToolCalls))
		copy(calls, m.ToolCalls)
		for j := range calls {
			if n := len(calls[j].Arguments); n > plan.KeptOutputBytes {
				calls[j].Arguments = fmt.Sprintf(`{"leftOut":"%d bytes of arguments of this earlier call"}`, n)
			}
		}
		m.ToolCalls = calls
	}
	return out
}
