package signals

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"

	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/api/operatorservice/v1"
	"go.temporal.io/api/serviceerror"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/temporal"
)

// GoalAttr holds the plan's goal (Text, so list filters match its words),
// set by the workflow at its first upsert whichever client started it, cut
// by [GoalAttrValue]. A worker that encrypts payloads writes a keyed
// digest of the goal ([NormalizeGoal], codec.Keyring.SearchDigest)
// instead: search attributes are never encrypted, so the plaintext goal
// would be readable in the server's visibility store.
var GoalAttr = temporal.NewSearchAttributeKeyString("PlanGoal")

// SearchAttributes are the keys the workflow keeps current; a namespace
// needs every one registered (see [EnsureSearchAttributes]).
var SearchAttributes = []temporal.SearchAttributeKey{PhaseAttr, AwaitingAttr, ProgressAttr, GoalAttr}

// MaxGoalAttrBytes bounds the PlanGoal value as it is stored: its JSON
// encoding. The server refuses a search attribute value over 2 KiB by
// default (limit.searchAttributesSizeOfValue), which fails the workflow
// task, so the value stays below it with room to spare.
const MaxGoalAttrBytes = 2000

// NormalizeGoal returns goal as PlanGoal compares it: spaces (new lines
// included) collapsed to one, none at either end. The digest of an
// encrypted plan's goal is taken over it, whole.
func NormalizeGoal(goal string) string {
	return strings.Join(strings.Fields(goal), " ")
}

// GoalAttrValue returns goal as PlanGoal holds it in plaintext: normalised
// ([NormalizeGoal]), cut on a rune boundary with an ellipsis so that its
// JSON encoding stays within MaxGoalAttrBytes.
func GoalAttrValue(goal string) string {
	goal = NormalizeGoal(goal)
	const ellipsis = " …"
	if jsonLen(goal) <= MaxGoalAttrBytes {
		return goal
	}
	budget := MaxGoalAttrBytes - jsonLen(ellipsis)
	n := 2 // the quotes
	for i, r := range goal {
		if n += jsonRuneLen(r); n > budget {
			return goal[:i] + ellipsis
		}
	}
	return goal
}

// jsonLen is the length of s encoded as a JSON string by encoding/json,
// quotes included.
func jsonLen(s string) int {
	n := 2
	for _, r := range s {
		n += jsonRuneLen(r)
	}
	return n
}

// jsonRuneLen is how many bytes encoding/json writes for r inside a string:
// two for the short escapes, six for \uXXXX (control characters, the HTML
// characters it escapes, U+2028, U+2029 and invalid UTF-8, written as
// U+FFFD), the UTF-8 length otherwise.
func jsonRuneLen(r rune) int {
	switch {
	case r == '"' || r == '\\' || r == '\n' || r == '\r' || r == '\t':
		return 2
	case r < 0x20 || r == '<' || r == '>' || r == '&' || r == '\u2028' || r == '\u2029' || r == utf8.RuneError:
		return 6
	}
	return utf8.RuneLen(r)
}

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
