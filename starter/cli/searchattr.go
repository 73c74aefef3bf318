package cli

import (
	"context"
	"errors"
	"fmt"

	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/api/operatorservice/v1"
	"go.temporal.io/api/serviceerror"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/temporal"

	"github.com/planmode/planmode/signals"
)

// searchAttributes are the keys the workflow keeps current.
var searchAttributes = []temporal.SearchAttributeKey{signals.PhaseAttr, signals.AwaitingAttr, signals.ProgressAttr}

// ensureSearchAttributes registers the plan search attributes the
// namespace lacks, so that list and the Web UI can filter on them. A
// concurrent registration ("already exists") is fine.
func ensureSearchAttributes(ctx context.Context, c client.Client, namespace string) error {
	ops := c.OperatorService()
	have, err := ops.ListSearchAttributes(ctx, &operatorservice.ListSearchAttributesRequest{Namespace: namespace})
	if err != nil {
		return fmt.Errorf("list search attributes: %w", err)
	}
	missing := map[string]enumspb.IndexedValueType{}
	for _, k := range searchAttributes {
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
