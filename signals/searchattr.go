package signals

import (
	"context"
	"errors"
	"fmt"

	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/api/operatorservice/v1"
	"go.temporal.io/api/serviceerror"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/temporal"
)

// SearchAttributes are the keys the workflow keeps current.
var SearchAttributes = []temporal.SearchAttributeKey{PhaseAttr, AwaitingAttr, ProgressAttr}

// EnsureSearchAttributes registers the plan search attributes the
// namespace lacks: the workflow's first upsert fails without them, and list
// filters and the Web UI need them. A concurrent registration ("already
// exists") is fine. It returns an error when the server refuses to list or
// add them (a hosted namespace may need an operator to add them).
func EnsureSearchAttributes(ctx context.Context, c client.Client, namespace string) error {
	ops := c.OperatorService()
	have, err := ops.ListSearchAttributes(ctx, &operatorservice.ListSearchAttributesRequest{Namespace: namespace})
	if err != nil {
		return fmt.Errorf("list search attributes: %w", err)
	}
	missing := map[string]enumspb.IndexedValueType{}
	for _, k := range SearchAttributes {
		if _, ok := have.GetCustomAttributes()[k.GetName()]; !ok {
			missing[k.GetName()] = k.GetValueType()
		}
	}
	if len(missing) == 0 {
		return nil
	}
	_, err = ops.AddSearchAttributes(ctx, &operatorservice.AddSearchAttributesRequest{
		Namespace: namespace, SearchAttributes: missing,
	})
	var exists *serviceerror.AlreadyExists
	if err != nil && !errors.As(err, &exists) {
		return fmt.Errorf("register search attributes: %w", err)
	}
	return nil
}
