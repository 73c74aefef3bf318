package workflows

import (
	"encoding/json"
	"errors"
	"fmt"

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

// rejectf builds a validator's refusal; errors.Is finds signals.ErrRejected
// in it.
func rejectf(format string, args ...any) error {
	return fmt.Errorf("%w: %s", signals.ErrRejected, fmt.Sprintf(format, args...))
}

// registerHandlers registers every query, update and signal. It must run
// before the workflow first blocks, so that no early input is lost.
func (r *run) registerHandlers(ctx workflow.Context) error {
	return errors.Join(
		r.registerQueries(ctx),
		listen(r, ctx, signals.SelectOption, ignoreCtx(r.validateSelect), r.selectOption),
		listen(r, ctx, signals.RefinePlan, ignoreCtx(r.validateRefine), r.refine),
		listen(r, ctx, signals.AnswerClarification, ignoreCtx(r.validateAnswers), r.answer),
		listen(r, ctx, signals.ConfirmSkip, ignoreCtx(r.validateConfirm), r.confirm),
		listen(r, ctx, signals.EditPlan, r.validateEdit, r.edit),
		listen(r, ctx, signals.Pause, ignoreCtx(r.validatePause), r.pause),
		listen(r, ctx, signals.Resume, ignoreCtx(r.validateResume), r.resume),
		// Rollback is an update only: the caller needs the files it
		// restored, and a fire-and-forget rollback would be unsafe.
		signals.Rollback.SetUpdateHandler(ctx, carryHeartbeat(ctx, r.rollback), ignoreCtx(r.validateRollback)),
		// Await-options is an update only: it exists to answer a caller
		// that starts a run and waits for its options in one call.
		signals.AwaitOptions.SetUpdateHandler(ctx, carryHeartbeat(ctx, r.awaitOptions), ignoreCtx(r.validateAwaitOptions)),
	)
}

// ignoreCtx adapts a validator that needs no context.
func ignoreCtx[Req any](fn func(Req) error) func(workflow.Context, Req) error {
	return func(_ workflow.Context, req Req) error { return fn(req) }
}

// listen registers h as an update with validate as its validator, and
// serves h's signal channel in a coroutine with the same validation and
// handler. A signal is received as raw JSON and decoded strictly, so a bad
// payload is refused and recorded in the pending query instead of failing
// the workflow task; so is a signal the validator or the handler refuses.
func listen[Req, Resp any](r *run, ctx workflow.Context, h signals.Handler[Req, Resp],
	validate func(workflow.Context, Req) error, apply func(workflow.Context, Req) (Resp, error)) error {
	if err := h.SetUpdateHandler(ctx, carryHeartbeat(ctx, apply), validate); err != nil {
		return fmt.Errorf("update %s: %w", h.Name, err)
	}
	ch := h.Channel(ctx)
	r.channels = append(r.channels, ch)
	workflow.Go(ctx, func(ctx workflow.Context) {
		for {
			var raw json.RawMessage
			ch.Receive(ctx, &raw)
			r.signalsRunning++
			if err := serveSignal(ctx, h, raw, validate, apply); err != nil {
				r.record(ctx, signals.Rejection{At: workflow.Now(ctx), Name: h.Name, Reason: err.Error(), Payload: plan.TruncateBytes(string(raw), maxRejectedPayload)})
			}
			r.signalsRunning--
		}
	})
	return nil
}

// serveSignal decodes, validates and applies one signal.
func serveSignal[Req, Resp any](ctx workflow.Context, h signals.Handler[Req, Resp], raw json.RawMessage,
	validate func(workflow.Context, Req) error, apply func(workflow.Context, Req) (Resp, error)) error {
	req, err := h.Decode(raw) //workflowcheck:ignore (strict JSON decoding of the payload only)
	if err != nil {
		return fmt.Errorf("%w: %v", signals.ErrRejected, err)
	}
	if err := validate(ctx, req); err != nil {
		return err
	}
	_, err = apply(ctx, req)
	return err
}

// record keeps a refused input for the pending query, the last
// maxRejected only.
func (r *run) record(ctx workflow.Context, rej signals.Rejection) {
	rej.Reason = plan.TruncateBytes(rej.Reason, maxRejectedReason)
	r.st.Rejected = append(r.st.Rejected, rej)
	if n := len(r.st.Rejected); n > maxRejected {
		r.st.Rejected = append([]signals.Rejection(nil), r.st.Rejected[n-maxRejected:]...)
	}
	workflow.GetLogger(ctx).Warn("input rejected", "name", rej.Name, "reason", rej.Reason)
	r.publish(ctx)
}

// registerQueries registers the read-only queries.
func (r *run) registerQueries(ctx workflow.Context) error {
	if err := signals.ProgressQuery.SetHandler(ctx, func() (signals.Progress, error) { return r.progress(ctx), nil }); err != nil {
		return err
	}
	if err := signals.PlanQuery.SetHandler(ctx, func() (signals.PlanView, error) { return r.planView(), nil }); err != nil {
		return err
	}
	if err := signals.OptionsQuery.SetHandler(ctx, func() (signals.OptionsView, error) { return r.optionsView(), nil }); err != nil {
		return err
	}
	return signals.PendingQuery.SetHandler(ctx, func() (signals.Pending, error) { return r.pending(), nil })
}
