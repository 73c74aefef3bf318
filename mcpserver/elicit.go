package mcpserver

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/planmode/planmode/plan"
	"github.com/planmode/planmode/signals"
)

// elicitingProtocol is the protocol revision of MCP's Tasks, the last
// in which a server sends elicitation/create while it answers a request
// (later ones have the host answer input requests instead).
const elicitingProtocol = "2025-11-25"

// canElicit reports whether the host of ss can be asked what a plan waits
// for: a session that lasts (stdio, not stateless HTTP), on a protocol
// revision no later than elicitingProtocol, of a host that said it takes
// form elicitation.
func (s *server) canElicit(ss *mcp.ServerSession) bool {
	if s.stateless || ss == nil {
		return false
	}
	p := ss.InitializeParams()
	if p == nil || p.Capabilities == nil || p.Capabilities.Elicitation == nil || p.ProtocolVersion > elicitingProtocol {
		return false
	}
	e := p.Capabilities.Elicitation
	return e.Form != nil || e.URL == nil
}

// question is one thing a plan waits for, as a form to a person and the
// input an accepted answer becomes.
type question struct {
	// key names the question among the task's input requests: the same
	// on every replica for the same question (from the options' revision,
	// the approval's or skip's request id, the questions' digest), and
	// another for the next question.
	key     string
	message string
	schema  map[string]any
	// answer sends the accepted content to the plan as its caller.
	answer func(ctx context.Context, content map[string]any) error
	// decline answers a declined form; nil: a declined form leaves the
	// plan waiting.
	decline func(ctx context.Context) error
}

// elicit asks the host of ss what plan id waits for, one question at a
// time, and answers the plan with what the person said. A refused
// answer is asked again with the plan's reason; a declined approval is a
// denial; a form cancelled (or declined, where nothing else fits) leaves
// the plan waiting and ends tasks/result with an error that says so.
func (s *server) elicit(ctx context.Context, ss *mcp.ServerSession, id string) error {
	q, err := s.question(ctx, id)
	if err != nil || q == nil {
		return err
	}
	refusedWith := ""
	for {
		msg := q.message
		if refusedWith != "" {
			msg = "The plan refused the last answer: " + refusedWith + "\n\n" + msg
		}
		res, err := ss.Elicit(ctx, &mcp.ElicitParams{Mode: "form", Message: msg, RequestedSchema: q.schema,
			Meta: mcp.Meta{relatedTaskKey: map[string]any{"taskId": id}}})
		if err != nil {
			if ctx.Err() != nil {
				return s.stillOpen(id)
			}
			return fmt.Errorf("task %s: elicit: %w", id, err)
		}
		switch {
		case res.Action == "accept":
			err = q.answer(ctx, res.Content)
		case res.Action == "decline" && q.decline != nil:
			err = q.decline(ctx)
		default:
			return &jsonrpc.Error{Code: codeTaskOpen, Message: fmt.Sprintf(
				"task %s: the person did not answer (%s): the plan still waits; call %s again, or answer it with the plan_* tools",
				id, res.Action, MethodTasksResult)}
		}
		if err == nil {
			return nil
		}
		if !isRejected(err) {
			return s.refusal(ctx, id, err)
		}
		refusedWith = err.Error()
	}
}

// isRejected reports whether the plan refused an input (and may take
// another).
func isRejected(err error) bool {
	return strings.Contains(err.Error(), signals.ErrRejected.Error())
}

// question is the first thing plan id waits for a person to answer, or
// nil when it waits for nothing a form can answer.
func (s *server) question(ctx context.Context, id string) (*question, error) {
	p, err := query(ctx, s, id, s.plans.Pending)
	if err != nil {
		return nil, s.refusal(ctx, id, err)
	}
	by := s.caller.Identity
	switch {
	case p.Awaiting == signals.AwaitingSelection:
		opts, err := query(ctx, s, id, s.plans.Options)
		if err != nil {
			return nil, s.refusal(ctx, id, err)
		}
		return selectionQuestion(s, id, opts, by), nil
	case p.Awaiting == signals.AwaitingClarification && p.Clarification != nil && len(p.Clarification.Questions) > 0:
		return clarificationQuestion(s, id, p.Clarification.Questions, by), nil
	case p.Awaiting == signals.AwaitingConfirmation && len(p.SkipConfirmations) > 0:
		return skipQuestion(s, id, p.SkipConfirmations[0], by), nil
	case p.Awaiting == signals.AwaitingApproval && len(p.Approvals) > 0:
		return approvalQuestion(s, id, p.Approvals[0], by), nil
	}
	return nil, nil
}

// noteField is an optional free-text field.
func noteField(title string) map[string]any {
	return map[string]any{"type": "string", "title": title, "maxLength": signals.MaxTextBytes}
}

// form is a flat object schema of properties, required the ones named.
func form(props map[string]any, required ...string) map[string]any {
	s := map[string]any{"type": "object", "properties": props}
	if len(required) > 0 {
		s["required"] = required
	}
	return s
}

// field is content's string field name, or "".
func field(content map[string]any, name string) string {
	v, _ := content[name].(string)
	return v
}

func selectionQuestion(s *server, id string, opts signals.OptionsView, by string) *question {
	var b strings.Builder
	fmt.Fprintf(&b, "Plan %s waits for a selection among its options:\n", id)
	choices := []any{}
	for _, o := range opts.Options {
		title := fmt.Sprintf("%s (score %.2f)", o.Title, o.Score)
		if o.ID == opts.RecommendedID {
			title += ", recommended"
		}
		choices = append(choices, map[string]any{"const": o.ID, "title": title})
		fmt.Fprintf(&b, "- %s: %s, %d steps\n", o.ID, title, len(o.Plan.Steps))
	}
	option := map[string]any{"type": "string", "title": "Option", "oneOf": choices}
	if opts.RecommendedID != "" {
		option["default"] = opts.RecommendedID
	}
	return &question{key: fmt.Sprintf("selection-r%d", opts.Revision), message: b.String(),
		schema: form(map[string]any{"optionId": option, "feedback": noteField("Feedback (optional)")}, "optionId"),
		answer: func(ctx context.Context, c map[string]any) error {
			req := signals.SelectOptionRequest{OptionID: field(c, "optionId"), Feedback: field(c, "feedback"), By: by}
			if err := req.Validate(); err != nil {
				return fmt.Errorf("%w: %w", signals.ErrRejected, err)
			}
			_, err := s.plans.Select(ctx, id, req)
			return err
		}}
}

func clarificationQuestion(s *server, id string, questions []string, by string) *question {
	props := map[string]any{}
	var required []string
	for i, q := range questions {
		name := fmt.Sprintf("q%d", i+1)
		props[name] = map[string]any{"type": "string", "title": plan.TruncateBytes(q, signals.MaxTextBytes),
			"maxLength": signals.MaxTextBytes}
		required = append(required, name)
	}
	digest := sha256.Sum256([]byte(strings.Join(questions, "\x00")))
	return &question{key: "clarification-" + hex.EncodeToString(digest[:8]),
		message: fmt.Sprintf("Plan %s asks %d question(s) before it plans.", id, len(questions)),
		schema:  form(props, required...),
		answer: func(ctx context.Context, c map[string]any) error {
			req := signals.AnswerClarificationRequest{Answers: map[string]string{}, By: by}
			for i, q := range questions {
				if a := field(c, fmt.Sprintf("q%d", i+1)); a != "" {
					req.Answers[q] = a
				}
			}
			if err := req.Validate(); err != nil {
				return fmt.Errorf("%w: %w", signals.ErrRejected, err)
			}
			_, err := s.plans.Answer(ctx, id, req)
			return err
		}}
}

func skipQuestion(s *server, id string, sc signals.SkipConfirmation, by string) *question {
	decision := map[string]any{"type": "string", "title": "Skip them?", "oneOf": []any{
		map[string]any{"const": "approve", "title": "Approve the skip"},
		map[string]any{"const": "reject", "title": "Reject it: run the steps"}}}
	return &question{key: "skip-" + sc.RequestID, message: fmt.Sprintf("Plan %s proposes to skip steps %s (confidence %.2f): %s", id,
		strings.Join(sc.StepIDs, ", "), sc.Confidence, sc.Reason),
		schema: form(map[string]any{"decision": decision, "note": noteField("Note (optional)")}, "decision"),
		answer: func(ctx context.Context, c map[string]any) error {
			req := signals.ConfirmSkipRequest{RequestID: sc.RequestID, Approve: field(c, "decision") == "approve",
				Note: field(c, "note"), By: by}
			_, err := s.plans.ConfirmSkip(ctx, id, req)
			return err
		}}
}

func approvalQuestion(s *server, id string, a signals.ToolApproval, by string) *question {
	args := string(a.Args)
	if args == "" {
		args = a.ArgsPreview + fmt.Sprintf("... (%d bytes)", a.ArgsBytes)
	}
	decision := map[string]any{"type": "string", "title": "Decision", "oneOf": []any{
		map[string]any{"const": "approve", "title": "Approve the call"},
		map[string]any{"const": "deny", "title": "Deny it"}}}
	deny := func(ctx context.Context, reason string) error {
		if reason == "" {
			reason = "denied by " + orUnknown(by) + " when asked"
		}
		_, err := s.plans.Deny(ctx, id, signals.DenyToolCallRequest{RequestID: a.RequestID, Reason: reason, By: by})
		return err
	}
	return &question{key: "approval-" + a.RequestID, message: fmt.Sprintf("Plan %s, step %s, asks to call %s (%s).\nArguments (digest %s): %s",
		id, a.StepID, a.Tool, a.Why, a.ArgsDigest, plan.TruncateBytes(args, 2048)),
		schema: form(map[string]any{"decision": decision, "note": noteField("Note, or the reason of a denial")}, "decision"),
		answer: func(ctx context.Context, c map[string]any) error {
			if field(c, "decision") != "approve" {
				return deny(ctx, field(c, "note"))
			}
			_, err := s.plans.Approve(ctx, id, signals.ApproveToolCallRequest{RequestID: a.RequestID, ArgsDigest: a.ArgsDigest,
				PlanVersion: a.PlanVersion, Note: field(c, "note"), By: by})
			return err
		},
		decline: func(ctx context.Context) error { return deny(ctx, "") }}
}
