package tools

import (
	"context"
	"encoding/json"
	"strings"
)

// FinishPlan is the name of the tool that ends a plan early.
const FinishPlan = "finish_plan"

// maxExitReason bounds the reason finish_plan carries into the plan.
const maxExitReason = 2000

type finishPlanArgs struct {
	Reason string `json:"reason"`
}

// finishPlanTool ends the plan: the step that calls it completes with the
// reason as its output and the steps not yet started are skipped, as when
// reflection finds the goal met (gollem's tool-initiated exit). It changes
// nothing in the workspace, but it is not read-only, so that planning and
// reflection, which may only look, are never offered it.
func finishPlanTool(Config) Tool {
	return Tool{
		Spec: Spec{
			Name: FinishPlan,
			Description: "End the whole plan now, its goal met (or out of reach): the remaining steps are " +
				"skipped and the reason becomes this step's result.",
			Parameters: schema(map[string]string{
				"reason": `{"type":"string"}`,
			}, "reason"),
		},
		Run: func(_ context.Context, _ Env, raw json.RawMessage) (Result, error) {
			var a finishPlanArgs
			if err := DecodeArgs(raw, &a); err != nil {
				return Result{}, err
			}
			if err := required("reason", a.Reason); err != nil {
				return Result{}, err
			}
			reason := clip(strings.TrimSpace(a.Reason), maxExitReason)
			return Result{Output: reason, Exit: true, ExitReason: reason}, nil
		},
	}
}
