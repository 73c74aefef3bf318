package workflows

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"go.temporal.io/sdk/converter"
	"go.temporal.io/sdk/workflow"

	"github.com/planmode/planmode/plan"
	"github.com/planmode/planmode/signals"
	"github.com/planmode/planmode/view"
)

// Bounds of what the pending query keeps of refused inputs.
const (
	maxRejected        = 20
	maxRejectedPayload = 200
	// maxRejectedReason bounds a refusal's reason, which may quote the
	// refused input.
	maxRejectedReason = 500
)

// reject builds a validator's refusal: a non-retryable application error
// of type typ (one of signals.RejectionTypes), so a client can tell why
// without parsing the message and does not retry what cannot succeed.
func reject(typ, format string, args ...any) error {
	return signals.Reject(typ, format, args...)
}

// controls take what arrives from outside the run: the signals and
// updates people and services send (each validated, then applied by the
// part that owns what it changes) and the queries, answered from a
// view.Run when asked. They write only their own bookkeeping and the list
// of refused inputs (st.Rejected).
type controls struct {
	r *run
	// signalsRunning counts signal handlers in progress, so that
	// continue-as-new waits for them as AllHandlersFinished does for
	// updates; signalsThisRun counts the signals this run received.
	signalsRunning int
	signalsThisRun int
	channels       []workflow.ReceiveChannel
	// rollingBack is set while a rollback update runs.
	rollingBack bool
}

// register registers every query, update and signal. It must run before
// the workflow first blocks, so that no early input is lost.
func (c *controls) register(ctx workflow.Context) error {
	return errors.Join(
		c.registerQueries(ctx),
		listen(c, ctx, signals.SelectOption, ignoreCtx(c.validateSelect), c.selectOption),
		listen(c, ctx, signals.RefinePlan, ignoreCtx(c.validateRefine), c.refine),
		listen(c, ctx, signals.AnswerClarification, ignoreCtx(c.validateAnswers), c.answer),
		listen(c, ctx, signals.ConfirmSkip, ignoreCtx(c.validateConfirm), c.confirm),
		listen(c, ctx, signals.EditPlan, c.validateEdit, c.edit),
		listen(c, ctx, signals.Pause, ignoreCtx(c.validatePause), c.pause),
		listen(c, ctx, signals.Resume, ignoreCtx(c.validateResume), c.resume),
		listen(c, ctx, signals.ApproveToolCall, ignoreCtx(c.r.exec.gate.validateApprove), c.r.exec.gate.approve),
		listen(c, ctx, signals.DenyToolCall, ignoreCtx(c.r.exec.gate.validateDeny), c.r.exec.gate.deny),
		// Rollback is an update only: the caller needs the files it
		// restored, and a fire-and-forget rollback would be unsafe.
		signals.Rollback.SetUpdateHandler(ctx, carryHeartbeat(ctx, c.rollback), ignoreCtx(c.validateRollback)),
		// Raise-budget is an update only: the caller needs to know
		// whether the caps were taken and the plan resumed.
		signals.RaiseBudget.SetUpdateHandler(ctx, carryHeartbeat(ctx, c.raiseBudget), ignoreCtx(c.validateRaise)),
		// Await-options is an update only: it exists to answer a caller
		// that starts a run and waits for its options in one call.
		signals.AwaitOptions.SetUpdateHandler(ctx, carryHeartbeat(ctx, c.awaitOptions), ignoreCtx(c.validateAwaitOptions)),
	)
}

// ignoreCtx adapts a validator that needs no context.
func ignoreCtx[Req any](fn func(Req) error) func(workflow.Context, Req) error {
	return func(_ workflow.Context, req Req) error { return fn(req) }
}

// listen registers h as an update with validate as its validator, and
// serves h's signal channel in a coroutine with the same validation and
// handler. A signal is received as its raw payload and decoded strictly
// here, so a bad payload — not JSON at all, or not the request's shape —
// is refused and recorded in the pending query instead of being dropped
// by the SDK or failing the workflow task; so is a signal the validator or
// the handler refuses.
func listen[Req, Resp any](c *controls, ctx workflow.Context, h signals.Handler[Req, Resp],
	validate func(workflow.Context, Req) error, apply func(workflow.Context, Req) (Resp, error)) error {
	if err := h.SetUpdateHandler(ctx, carryHeartbeat(ctx, apply), validate); err != nil {
		return fmt.Errorf("update %s: %w", h.Name, err)
	}
	ch := h.Channel(ctx)
	c.channels = append(c.channels, ch)
	workflow.Go(ctx, func(ctx workflow.Context) {
		for {
			var v converter.RawValue
			ch.Receive(ctx, &v)
			c.signalsThisRun++
			raw, err := signalJSON(v)
			c.signalsRunning++
			if err == nil {
				err = serveSignal(ctx, h, raw, validate, apply)
			}
			if err != nil {
				by := callerOf(raw) //workflowcheck:ignore (decoding the payload only)
				c.keep(ctx, signals.Rejection{At: workflow.Now(ctx), Name: h.Name, Reason: signals.RejectionReason(err),
					Payload: plan.TruncateBytes(string(raw), maxRejectedPayload), By: by})
				// A flood arrives in one workflow task: the details
				// show its last rejection, rendered once.
				if ch.Len() == 0 {
					c.r.publish(ctx)
				}
			}
			c.signalsRunning--
			if c.signalsThisRun%signalsBetweenYields == 0 {
				yield(ctx)
			}
		}
	})
	return nil
}

// idle reports whether no signal is being served or waits in a channel:
// continue-as-new waits for it, so that no input is lost.
func (c *controls) idle() bool {
	if c.signalsRunning > 0 {
		return false
	}
	for _, ch := range c.channels {
		if ch.Len() > 0 {
			return false
		}
	}
	return true
}

// spent reports whether this run received its share of signals
// (runOptions.signalLimit).
func (c *controls) spent() bool {
	return c.r.opts.signalLimit > 0 && c.signalsThisRun >= c.r.opts.signalLimit
}

// received is how many signals this run received.
func (c *controls) received() int {
	return c.signalsThisRun
}

// signalsBetweenYields is how many signals a handler coroutine serves
// before it lets the others run: thousands of signals may arrive in one
// workflow task, and the SDK fails a task whose coroutine runs for a
// second without yielding.
const signalsBetweenYields = 256

// yield blocks the calling coroutine until a coroutine it starts has run:
// every other runnable coroutine runs meanwhile, and no command is
// recorded.
func yield(ctx workflow.Context) {
	baton := workflow.NewChannel(ctx)
	workflow.Go(ctx, func(ctx workflow.Context) { baton.Send(ctx, struct{}{}) })
	baton.Receive(ctx, nil)
}

// signalJSON returns a signal's payload as JSON: a JSON payload's bytes,
// nothing for no payload or a null one. Any other encoding, and bytes that
// are not valid JSON, are refused with the reason; the refusal keeps a
// printable excerpt of the bytes.
func signalJSON(v converter.RawValue) (json.RawMessage, error) {
	p := v.Payload()
	if p == nil {
		return nil, nil
	}
	enc := string(p.GetMetadata()[converter.MetadataEncoding])
	switch {
	case enc == converter.MetadataEncodingNil:
		return nil, nil
	case enc != converter.MetadataEncodingJSON:
		return json.RawMessage(printable(p.GetData())), reject(signals.ErrorTypeInvalidInput, "payload is not JSON (encoding %q)", enc)
	case !json.Valid(p.GetData()):
		return json.RawMessage(printable(p.GetData())), reject(signals.ErrorTypeInvalidInput, "payload is not valid JSON")
	}
	return json.RawMessage(p.GetData()), nil
}

// callerOf reads the by field of a refused signal's payload, whatever
// else is wrong with it, bounded; "" when there is none.
func callerOf(raw json.RawMessage) string {
	var v struct {
		By string `json:"by"`
	}
	if json.Unmarshal(raw, &v) != nil { //workflowcheck:ignore (decoding the payload only)
		return ""
	}
	return plan.TruncateBytes(v.By, signals.MaxCallerBytes)
}

// printable is b cut short and made valid UTF-8, for the pending query.
func printable(b []byte) string {
	return strings.ToValidUTF8(plan.TruncateBytes(string(b), maxRejectedPayload), "?")
}

// serveSignal decodes, validates and applies one signal.
func serveSignal[Req, Resp any](ctx workflow.Context, h signals.Handler[Req, Resp], raw json.RawMessage,
	validate func(workflow.Context, Req) error, apply func(workflow.Context, Req) (Resp, error)) error {
	req, err := h.Decode(raw) //workflowcheck:ignore (strict JSON decoding of the payload only)
	if err != nil {
		return reject(signals.ErrorTypeInvalidInput, "%v", err)
	}
	if err := validate(ctx, req); err != nil {
		return err
	}
	_, err = apply(ctx, req)
	return err
}

// record keeps a refused input (see keep) and publishes it.
func (c *controls) record(ctx workflow.Context, rej signals.Rejection) {
	c.keep(ctx, rej)
	c.r.publish(ctx)
}

// keep keeps a refused input for the pending query, the last maxRejected
// only.
func (c *controls) keep(ctx workflow.Context, rej signals.Rejection) {
	st := &c.r.st
	rej.Reason = plan.TruncateBytes(rej.Reason, maxRejectedReason)
	st.Rejected = append(st.Rejected, rej)
	if n := len(st.Rejected); n > maxRejected {
		st.Rejected = append([]signals.Rejection(nil), st.Rejected[n-maxRejected:]...)
	}
	workflow.GetLogger(ctx).Warn("input rejected", "name", rej.Name, "reason", rej.Reason)
}

// registerQueries registers the read-only queries. Each computes its
// answer from a view of the run when it is asked, never before.
func (c *controls) registerQueries(ctx workflow.Context) error {
	r := c.r
	progress := func() (signals.Progress, error) { return view.Progress(r.view(), workflow.Now(ctx)), nil }
	if err := signals.ProgressQuery.SetHandler(ctx, progress); err != nil {
		return err
	}
	if err := signals.PlanQuery.SetHandler(ctx, func() (signals.PlanView, error) { return view.Plan(r.view()), nil }); err != nil {
		return err
	}
	if err := signals.OptionsQuery.SetHandler(ctx, func() (signals.OptionsView, error) { return r.st.Options, nil }); err != nil {
		return err
	}
	return signals.PendingQuery.SetHandler(ctx, func() (signals.Pending, error) { return view.Pending(r.view()), nil })
}
