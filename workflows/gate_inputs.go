package workflows

import (
	"encoding/json"
	"fmt"

	"github.com/google/jsonschema-go/jsonschema"
	"go.temporal.io/sdk/workflow"

	"github.com/planmode/planmode/plan"
	"github.com/planmode/planmode/signals"
)

// The gate's inputs: approve-tool-call and deny-tool-call. The validators
// answer before anything is recorded; a refused signal is kept as a
// rejection (see listen).

// openRequest returns the open, undecided request id, or the refusal.
func (g *gate) openRequest(id string) (signals.ToolApproval, error) {
	if _, decided := g.answers[id]; decided {
		return signals.ToolApproval{}, reject(signals.ErrorTypeWrongPhase, "approval request %q is already decided", plan.TruncateBytes(id, 64))
	}
	ap, ok := g.find(id)
	if !ok {
		return signals.ToolApproval{}, reject(signals.ErrorTypeUnknownRequest, "approval request %q is not open", plan.TruncateBytes(id, 64))
	}
	return ap, nil
}

// validateApprove refuses an approval of no open request, a stale one
// (another digest or plan version) and edited arguments the tool's
// schema refuses.
func (g *gate) validateApprove(req signals.ApproveToolCallRequest) error {
	if err := req.Validate(); err != nil {
		return reject(signals.ErrorTypeInvalidInput, "%v", err)
	}
	ap, err := g.openRequest(req.RequestID)
	if err != nil {
		return err
	}
	if err := ap.CheckApproval(req, g.plans.planVersion()); err != nil {
		return err
	}
	if len(req.Args) > 0 {
		if err := checkArgs(g.run.recorded().schema(ap.Tool), req.Args); err != nil {
			return reject(signals.ErrorTypeInvalidInput, "args for %s: %v", ap.Tool, err)
		}
	}
	return nil
}

// approve decides the request approved, with the arguments edited when
// the approval carries some.
func (g *gate) approve(ctx workflow.Context, req signals.ApproveToolCallRequest) (signals.ApprovalDecision, error) {
	if err := g.validateApprove(req); err != nil {
		return signals.ApprovalDecision{}, err
	}
	ap, _ := g.find(req.RequestID)
	d := signals.ApprovalDecision{RequestID: ap.RequestID, StepID: ap.StepID, Tool: ap.Tool, Decision: signals.DecisionApproved,
		By: string(signals.Caller(req.By)), Reason: req.Note, At: workflow.Now(ctx), EditedArgs: len(req.Args) > 0}
	g.decide(ctx, ap, gateAnswer{approve: true, args: plan.CanonicalArgs(req.Args), decision: d})
	return d, nil
}

// validateDeny refuses a denial of no open request.
func (g *gate) validateDeny(req signals.DenyToolCallRequest) error {
	if err := req.Validate(); err != nil {
		return reject(signals.ErrorTypeInvalidInput, "%v", err)
	}
	_, err := g.openRequest(req.RequestID)
	return err
}

// deny decides the request denied; the agent sees the reason.
func (g *gate) deny(ctx workflow.Context, req signals.DenyToolCallRequest) (signals.ApprovalDecision, error) {
	if err := g.validateDeny(req); err != nil {
		return signals.ApprovalDecision{}, err
	}
	ap, _ := g.find(req.RequestID)
	d := signals.ApprovalDecision{RequestID: ap.RequestID, StepID: ap.StepID, Tool: ap.Tool, Decision: signals.DecisionDenied,
		By: string(signals.Caller(req.By)), Reason: req.Reason, At: workflow.Now(ctx)}
	g.decide(ctx, ap, gateAnswer{decision: d})
	return d, nil
}

// checkArgs validates edited arguments against a tool's input schema;
// without a schema any JSON object passes (Validate checked that much).
func checkArgs(schema, args json.RawMessage) error {
	if len(schema) == 0 {
		return nil
	}
	var s jsonschema.Schema
	//workflowcheck:ignore (decoding the recorded schema only)
	if err := json.Unmarshal(schema, &s); err != nil {
		return fmt.Errorf("the tool's schema cannot be read: %w", err)
	}
	rs, err := s.Resolve(nil) //workflowcheck:ignore (a pure function of the recorded schema)
	if err != nil {
		return fmt.Errorf("the tool's schema cannot be resolved: %w", err)
	}
	var v any
	//workflowcheck:ignore (decoding the payload only)
	if err := json.Unmarshal(args, &v); err != nil {
		return err
	}
	return rs.Validate(v) //workflowcheck:ignore (a pure function of the schema and the arguments)
}
