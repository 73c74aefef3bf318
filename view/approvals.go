package view

import (
	"fmt"

	"github.com/planmode/planmode/signals"
)

// maxApprovalRows bounds the gated calls the details list; the pending
// query has them all.
const maxApprovalRows = 3

// detailsApprovals writes the gated calls waiting for a person and the
// commands that decide the first.
func detailsApprovals(p *page, r Run) {
	aps := r.State.Approvals
	p.section("Tool calls waiting for approval")
	p.WriteString("| Request | Step | Tool | Arguments | Why | Since | Deadline |\n|---|---|---|---|---|---|---|\n")
	for i, a := range aps {
		if i == maxApprovalRows {
			p.f("\n… and %d more (see the pending query)\n", len(aps)-i)
			break
		}
		args := string(a.Args)
		if args == "" {
			args = a.ArgsPreview
		}
		p.f("| `%s` | %s | `%s` | `%s` | %s | %s | %s, then %s |\n", inline(a.RequestID, titleWidth), inline(a.StepID, titleWidth),
			inline(a.Tool, titleWidth), inline(args, digestWidth), inline(a.Why, digestWidth), stamp(a.Since), stamp(a.Deadline), a.OnTimeout)
	}
	first := aps[0]
	p.f("\nApprove or deny request `%s` (arguments %s, plan version %d):", inline(first.RequestID, titleWidth), first.ArgsDigest, first.PlanVersion)
	approve := fmt.Sprintf(`{"requestId":%s,"argsDigest":%s,"planVersion":%d}`, jsonString(first.RequestID), jsonString(first.ArgsDigest), first.PlanVersion)
	deny := fmt.Sprintf(`{"requestId":%s,"reason":"…"}`, jsonString(first.RequestID))
	p.commands(
		"planmode CLI", fmt.Sprintf("planmode approve %s %s", shellQuote(r.WorkflowID), shellQuote(first.RequestID)),
		"planmode CLI", fmt.Sprintf("planmode deny %s %s --reason '…'", shellQuote(r.WorkflowID), shellQuote(first.RequestID)),
		"Temporal CLI", updateCommand(r, signals.ApproveToolCall.Name, approve),
		"Temporal CLI", updateCommand(r, signals.DenyToolCall.Name, deny),
	)
}
