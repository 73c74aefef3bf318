package activities

import (
	"context"
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/temporal"
)

func TestGoalAttrWritesTheGoalWithoutEncryption(t *testing.T) {
	out, err := worker{}.set().GoalAttr(context.Background(), GoalAttrInput{Goal: " Add JWT\n authentication"})
	require.NoError(t, err)
	assert.Equal(t, GoalAttrOutput{Value: "Add JWT authentication"}, out)
}

func TestGoalAttrWritesOnlyTheDigestWithEncryption(t *testing.T) {
	var got string
	a := worker{GoalDigest: func(goal string) (string, error) { got = goal; return "hmac:0f", nil }}.set()
	out, err := a.GoalAttr(context.Background(), GoalAttrInput{Goal: " Add JWT\n authentication"})
	require.NoError(t, err)
	assert.Equal(t, GoalAttrOutput{Value: "hmac:0f", Digest: true}, out)
	assert.Equal(t, "Add JWT authentication", got, "the digest is of the normalised goal")
}

func TestGoalAttrFailsRatherThanWriteTheGoal(t *testing.T) {
	a := worker{GoalDigest: func(string) (string, error) { return "", errors.New("key file: permission denied") }}.set()
	out, err := a.GoalAttr(context.Background(), GoalAttrInput{Goal: "Add JWT authentication"})
	var appErr *temporal.ApplicationError
	require.ErrorAs(t, err, &appErr)
	assert.Equal(t, ErrorTypeGoalDigest, appErr.Type())
	assert.True(t, appErr.NonRetryable())
	assert.Empty(t, out.Value)
}
