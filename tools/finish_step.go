package tools

import (
	"encoding/json"
	"strings"
)

// FinishStep is the name of the tool by which the model ends an agent
// step with its answer, in the same turn as its last tool calls.
const FinishStep = "finish_step"

// MaxStepAnswer bounds, in bytes, the answer finish_step carries into the
// plan. A longer one is refused, not cut: the model is told to shorten it
// or to answer with a plain reply, so no part of an answer is lost
// unseen.
const MaxStepAnswer = 4000

type finishStepArgs struct {
	Answer string `json:"answer"`
}

// FinishStepSpec returns finish_step's spec. It is no tool of the
// registry: the workflow handles it without running anything, as the
// way any agent step ends, so it is offered to agent turns only (even
// when a step names its tools) and never to planning or reflection. Every
// agent turn sends this schema, hence the short description.
func FinishStepSpec() Spec {
	return Spec{
		Name:        FinishStep,
		Description: "End the step with this answer if the turn's other calls succeed.",
		Parameters: schema(map[string]string{
			"answer": `{"type":"string"}`,
		}, "answer"),
	}
}

// DecodeFinishStep decodes finish_step's arguments strictly and returns
// the step's answer, trimmed. Malformed or unknown arguments, a missing or
// blank answer and one longer than [MaxStepAnswer] are [*ToolError]s the
// model can act on.
func DecodeFinishStep(raw json.RawMessage) (string, error) {
	var a finishStepArgs
	if err := DecodeArgs(raw, &a); err != nil {
		return "", err
	}
	if err := required("answer", a.Answer); err != nil {
		return "", err
	}
	answer := strings.TrimSpace(a.Answer)
	if len(answer) > MaxStepAnswer {
		return "", Failf("answer is %d bytes, more than the %d finish_step takes: shorten it, or end the step "+
			"with a reply without tool calls", len(answer), MaxStepAnswer)
	}
	return answer, nil
}
