package signals

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"

	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/workflow"
)

// Handler is a signal and an update sharing one name, request and response.
type Handler[Req, Resp any] struct {
	Name        string
	Description string
}

// UpdateOnly is an update with no signal twin.
type UpdateOnly[Req, Resp any] struct {
	Name        string
	Description string
}

// Query is a read-only query.
type Query[Resp any] struct {
	Name        string
	Description string
}

// Channel returns the signal channel of h. Receive into a json.RawMessage
// and Decode it, so that a malformed payload is rejected instead of failing
// the workflow task.
func (h Handler[Req, Resp]) Channel(ctx workflow.Context) workflow.ReceiveChannel {
	return workflow.GetSignalChannelWithOptions(ctx, h.Name, workflow.SignalChannelOptions{Description: h.Description})
}

// Decode decodes a payload of h strictly and checks it on its own:
// unknown fields and trailing data are errors, so a misspelt field is
// reported rather than ignored, and the request type's Validate method
// refuses contradictory fields and sizes beyond limits.go. No payload, or
// null, is the zero request, which the same checks then judge. The
// workflow decodes signals with it, and the validators SetUpdateHandler
// registers decode updates with it, so both paths refuse the same inputs.
func (h Handler[Req, Resp]) Decode(raw json.RawMessage) (Req, error) {
	return decodeStrict[Req](h.Name, raw)
}

// Decode decodes a payload of u like [Handler.Decode].
func (u UpdateOnly[Req, Resp]) Decode(raw json.RawMessage) (Req, error) {
	return decodeStrict[Req](u.Name, raw)
}

// SetUpdateHandler registers fn as the update handler of h with validate as
// its validator. The validator must only read state. The payload is
// decoded by [Handler.Decode] before validate sees it: an update with an
// unknown or contradictory field is rejected and changes nothing.
func (h Handler[Req, Resp]) SetUpdateHandler(ctx workflow.Context, fn func(workflow.Context, Req) (Resp, error), validate func(workflow.Context, Req) error) error {
	return setUpdateHandler(ctx, h.Name, h.Description, fn, validate)
}

// SetUpdateHandler registers fn as the handler of u with validate as its
// validator, decoding like [Handler.SetUpdateHandler].
func (u UpdateOnly[Req, Resp]) SetUpdateHandler(ctx workflow.Context, fn func(workflow.Context, Req) (Resp, error), validate func(workflow.Context, Req) error) error {
	return setUpdateHandler(ctx, u.Name, u.Description, fn, validate)
}

// setUpdateHandler registers the update name on the raw JSON of its
// payload, so that the validator decodes it strictly instead of through
// the SDK's lenient JSON converter, then hands the typed request to
// validate and fn.
//
// The handler itself decodes leniently, as the SDK's converter did: the
// SDK runs no validator while replaying, so an update accepted before the
// strict decoding existed must replay exactly as it first ran. A new
// update reaches the handler only after the strict validator accepted it.
func setUpdateHandler[Req, Resp any](ctx workflow.Context, name, description string,
	fn func(workflow.Context, Req) (Resp, error), validate func(workflow.Context, Req) error) error {
	handler := func(ctx workflow.Context, raw json.RawMessage) (Resp, error) {
		req, err := decodeLenient[Req](raw) //workflowcheck:ignore (JSON decoding of the payload only)
		if err != nil {
			var zero Resp
			return zero, fmt.Errorf("%w: %s: bad payload: %v", ErrRejected, name, err)
		}
		return fn(ctx, req)
	}
	validator := func(ctx workflow.Context, raw json.RawMessage) error {
		req, err := decodeStrict[Req](name, raw) //workflowcheck:ignore (JSON decoding of the payload only)
		if err != nil {
			return rejectionOf(err)
		}
		if validate == nil {
			return nil
		}
		return validate(ctx, req)
	}
	return workflow.SetUpdateHandlerWithOptions(ctx, name, handler, workflow.UpdateHandlerOptions{
		Validator:   validator,
		Description: description,
	})
}

// decodeStrict is [Handler.Decode] for the payload of name.
func decodeStrict[Req any](name string, raw json.RawMessage) (Req, error) {
	var req Req
	if isEmpty(raw) {
		return req, checkPayload(name, req)
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&req); err != nil {
		return req, fmt.Errorf("%s: bad payload: %w", name, err)
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return req, fmt.Errorf("%s: bad payload: data after the JSON value", name)
	}
	return req, checkPayload(name, req)
}

// decodeLenient decodes raw as the SDK's JSON converter does: unknown
// fields are ignored, and no payload is the zero request.
func decodeLenient[Req any](raw json.RawMessage) (Req, error) {
	var req Req
	if isEmpty(raw) {
		return req, nil
	}
	err := json.Unmarshal(raw, &req)
	return req, err
}

// isEmpty reports whether raw carries no payload: nothing, or null.
func isEmpty(raw json.RawMessage) bool {
	t := bytes.TrimSpace(raw)
	return len(t) == 0 || bytes.Equal(t, []byte("null"))
}

// checkPayload runs req's own Validate method, if its type has one.
func checkPayload(name string, req any) error {
	v, ok := req.(interface{ Validate() error })
	if !ok {
		return nil
	}
	if err := v.Validate(); err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	return nil
}

// SetHandler registers fn as the query handler of q. fn must only read state.
func (q Query[Resp]) SetHandler(ctx workflow.Context, fn func() (Resp, error)) error {
	return workflow.SetQueryHandlerWithOptions(ctx, q.Name, fn, workflow.QueryHandlerOptions{Description: q.Description})
}

// Signal sends req as a signal to the run of workflowID (latest run).
func (h Handler[Req, Resp]) Signal(ctx context.Context, c client.Client, workflowID string, req Req) error {
	if err := c.SignalWorkflow(ctx, workflowID, "", h.Name, req); err != nil {
		return fmt.Errorf("signal %s: %w", h.Name, err)
	}
	return nil
}

// Update sends req as an update and waits for its answer. A rejected
// update returns the validator's error and changes nothing.
func (h Handler[Req, Resp]) Update(ctx context.Context, c client.Client, workflowID string, req Req) (Resp, error) {
	return update[Resp](ctx, c, workflowID, h.Name, req)
}

// Update sends req and waits for the answer.
func (u UpdateOnly[Req, Resp]) Update(ctx context.Context, c client.Client, workflowID string, req Req) (Resp, error) {
	return update[Resp](ctx, c, workflowID, u.Name, req)
}

// Get runs the query against the run of workflowID (latest run).
func (q Query[Resp]) Get(ctx context.Context, c client.Client, workflowID string) (Resp, error) {
	var out Resp
	v, err := c.QueryWorkflow(ctx, workflowID, "", q.Name)
	if err != nil {
		return out, fmt.Errorf("query %s: %w", q.Name, err)
	}
	if err := v.Get(&out); err != nil {
		return out, fmt.Errorf("query %s: decode: %w", q.Name, err)
	}
	return out, nil
}

func update[Resp any](ctx context.Context, c client.Client, workflowID, name string, req any) (Resp, error) {
	var out Resp
	h, err := c.UpdateWorkflow(ctx, client.UpdateWorkflowOptions{
		WorkflowID:   workflowID,
		UpdateName:   name,
		Args:         []any{req},
		WaitForStage: client.WorkflowUpdateStageCompleted,
	})
	if err != nil {
		return out, fmt.Errorf("update %s: %w", name, err)
	}
	if err := h.Get(ctx, &out); err != nil {
		return out, fmt.Errorf("update %s: %w", name, err)
	}
	return out, nil
}

// ErrRejected marks an input the workflow refused; errors.Is finds it in
// the answers of the workflow's validators.
var ErrRejected = errors.New("rejected")
