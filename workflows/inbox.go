package workflows

import (
	"encoding/json"
	"fmt"
	"strings"

	"go.temporal.io/sdk/converter"
	"go.temporal.io/sdk/workflow"

	"github.com/planmode/planmode/plan"
	"github.com/planmode/planmode/signals"
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

// inbox takes what arrives from outside the run for the controls: listen
// registers each input with the validator and the handler of the part
// that owns what it changes. It counts the signals, keeps the inputs
// refused (signals.InputState.Rejected, the last maxRejected only) and
// says when no signal is being served or waits.
type inbox struct {
	// st is the controls' state, of which the inbox writes Rejected.
	st   *signals.InputState
	show reporter
	// limit is how many signals a run receives before it continues as
	// new (runSettings.signalLimit).
	limit int
	// running counts signal handlers in progress, so that continue-as-new
	// waits for them as AllHandlersFinished does for updates; count
	// counts the signals this run received.
	running, count int
	channels       []workflow.ReceiveChannel
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
func listen[Req, Resp any](in *inbox, ctx workflow.Context, h signals.Handler[Req, Resp],
	validate func(workflow.Context, Req) error, apply func(workflow.Context, Req) (Resp, error)) error {
	if err := h.SetUpdateHandler(ctx, carryHeartbeat(ctx, apply), validate); err != nil {
		return fmt.Errorf("update %s: %w", h.Name, err)
	}
	ch := h.Channel(ctx)
	in.channels = append(in.channels, ch)
	workflow.Go(ctx, func(ctx workflow.Context) {
		for {
			var v converter.RawValue
			ch.Receive(ctx, &v)
			in.count++
			raw, err := signalJSON(v)
			in.running++
			if err == nil {
				err = serveSignal(ctx, h, raw, validate, apply)
			}
			if err != nil {
				by := callerOf(raw) //workflowcheck:ignore (decoding the payload only)
				in.keep(ctx, signals.Rejection{At: workflow.Now(ctx), Name: h.Name, Reason: signals.RejectionReason(err),
					Payload: plan.TruncateBytes(string(raw), maxRejectedPayload), By: by})
				// A flood arrives in one workflow task: the details
				// show its last rejection, rendered once.
				if ch.Len() == 0 {
					in.show.publish(ctx)
				}
			}
			in.running--
			if in.count%signalsBetweenYields == 0 {
				yield(ctx)
			}
		}
	})
	return nil
}

// idle reports whether no signal is being served or waits in a channel:
// continue-as-new waits for it, so that no input is lost.
func (in *inbox) idle() bool {
	if in.running > 0 {
		return false
	}
	for _, ch := range in.channels {
		if ch.Len() > 0 {
			return false
		}
	}
	return true
}

// spent reports whether this run received its share of signals.
func (in *inbox) spent() bool {
	return in.limit > 0 && in.count >= in.limit
}

// received is how many signals this run received.
func (in *inbox) received() int {
	return in.count
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
func (in *inbox) record(ctx workflow.Context, rej signals.Rejection) {
	in.keep(ctx, rej)
	in.show.publish(ctx)
}

// keep keeps a refused input for the pending query, the last maxRejected
// only.
func (in *inbox) keep(ctx workflow.Context, rej signals.Rejection) {
	st := in.st
	rej.Reason = plan.TruncateBytes(rej.Reason, maxRejectedReason)
	st.Rejected = append(st.Rejected, rej)
	if n := len(st.Rejected); n > maxRejected {
		st.Rejected = append([]signals.Rejection(nil), st.Rejected[n-maxRejected:]...)
	}
	workflow.GetLogger(ctx).Warn("input rejected", "name", rej.Name, "reason", rej.Reason)
}
