package phases

import (
	"encoding/json"
	"fmt"

	"github.com/planmode/planmode/llm"
	"github.com/planmode/planmode/plan"
	"github.com/planmode/planmode/prompts"
	"github.com/planmode/planmode/tools"
)

// ActedOnResultBytes is the head an agent turn keeps of a tool result the
// model has already answered with a later turn. The newest results go
// whole: they are what this turn decides on.
const ActedOnResultBytes = 400

// ActedOnView returns the transcript an agent turn sends: the tool
// results that come before the transcript's last assistant message (the
// model read them whole and acted on them) cut to a head of
// ActedOnResultBytes, saying how long they were; the rest as it is.
// Each turn of a long step otherwise sends every file it ever read
// again: in a step that reads a file and then writes one, the read was
// most of the last turn's prompt. t itself is left alone.
func ActedOnView(t []llm.Message) []llm.Message {
	last := -1
	for i, m := range t {
		if m.Role == llm.RoleAssistant {
			last = i
		}
	}
	var out []llm.Message
	for i, m := range t {
		if i < last && m.Role == llm.RoleTool && len(m.Content) > ActedOnResultBytes {
			if out == nil {
				out = make([]llm.Message, len(t))
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

// LaterTurnContext is the step context a turn after the first sends: the
// step (its id, title, description and position "7 of 50") and nothing
// around it. The first turn showed the goal, the earlier steps' results
// and the next step, and the model planned the step from them; from the
// second turn on it continues that plan from the step's own transcript
// (its calls and their results), and every turn of a step paid for that
// context again. The step line stays because it is rendered afresh each
// turn, whatever bound cut the first turn's messages from the transcript
// (workflows' boundTranscript keeps heads of older messages): a later
// turn always names the step it works on, and the prompt its task. What
// is left out is only counted (EarlierCount, LaterCount).
func LaterTurnContext(sc plan.StepContext, iteration int) plan.StepContext {
	if iteration <= 1 {
		return sc
	}
	sc.EarlierCount += len(sc.Before)
	sc.LaterCount += len(sc.After)
	sc.Goal, sc.Before, sc.After, sc.Summary = "", nil, nil, ""
	return sc
}

// withFinishStep offers finish_step beside specs on a turn that offers
// tools (AgentTurn offers none on the final one, which asks for a plain
// answer), whatever tools the step names: it is how any agent step ends
// in the turn of its last tool calls instead of a turn of its own. specs
// itself is left alone.
func withFinishStep(data *prompts.StepData, specs []llm.ToolSpec) []llm.ToolSpec {
	for _, s := range specs {
		if s.Name == tools.FinishStep {
			return specs
		}
	}
	s := tools.FinishStepSpec()
	data.Tools = append(data.Tools, s.Name)
	return append(specs[:len(specs):len(specs)], llm.ToolSpec{Name: s.Name, Description: s.Description, Parameters: s.Parameters})
}

// FinishOf reads the finish_step call among a turn's calls: ok is false
// when there is none; else its answer, decoded strictly and bounded
// (tools.DecodeFinishStep), or err saying why it cannot end the step.
// Two calls in one turn are refused: which answer would be the step's is
// the model's to say.
func FinishOf(calls []llm.ToolCall) (answer string, ok bool, err error) {
	n := 0
	for _, c := range calls {
		if c.Name != tools.FinishStep {
			continue
		}
		if n++; n == 1 {
			answer, err = tools.DecodeFinishStep(json.RawMessage(c.Arguments))
		}
	}
	if n > 1 {
		return "", true, fmt.Errorf("finish_step was called %d times in one turn: call it once, with the step's whole answer", n)
	}
	return answer, n == 1, err
}
