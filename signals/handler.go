package signals

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"

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

// Decode decodes a signal payload strictly: unknown fields are errors, so a
// misspelt field is reported rather than ignored.
func (h Handler[Req, Resp]) Decode(raw json.RawMessage) (Req, error) {
	var req Req
	if len(bytes.TrimSpace(raw)) == 0 || bytes.Equal(bytes.TrimSpace(raw), []byte("null")) {
		return req, fmt.Errorf("%s: empty payload", h.Name)
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&req); err != nil {
		return req, fmt.Errorf("%s: bad payload: %w", h.Name, err)
	}
	return req, nil
}

// SetUpdateHandler registers fn as the update handler of h with validate as
// its validator. The validator must only read state.
func (h Handler[Req, Resp]) SetUpdateHandler(ctx workflow.Context, fn func(workflow.Context, Req) (Resp, error), validate func(workflow.Context, Req) error) error {
	return workflow.SetUpdateHandlerWithOptions(ctx, h.Name, fn, workflow.UpdateHandlerOptions{
		Validator:   validate,
		Description: h.Description,
	})
}

// SetUpdateHandler registers fn as the handler of u with validate as its
// validator.
func (u UpdateOnly[Req, Resp]) SetUpdateHandler(ctx workflow.Context, fn func(workflow.Context, Req) (Resp, error), validate func(workflow.Context, Req) error) error {
	return workflow.SetUpdateHandlerWithOptions(ctx, u.Name, fn, workflow.UpdateHandlerOptions{
		Validator:   validate,
		Description: u.Description,
	})
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
