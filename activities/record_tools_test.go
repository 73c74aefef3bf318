package activities

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/planmode/planmode/plan"
	"github.com/planmode/planmode/signals"
)

// TestRecordToolsRecordsThePolicyAndTheBuiltinSchemas: a worker with no
// MCP servers records its approval policy with the defaults filled in and
// the input schema of each of its own tools, which approvals' edited
// arguments are checked against.
func TestRecordToolsRecordsThePolicyAndTheBuiltinSchemas(t *testing.T) {
	got, err := worker{}.set().RecordTools(context.Background())
	require.NoError(t, err)
	assert.Equal(t, signals.DefaultApprovalOnTimeout, got.Approval.OnTimeout)
	assert.Empty(t, got.MCP)
	for _, name := range plan.BuiltinTools() {
		assert.Contains(t, string(got.Schemas[name]), `"type"`, "the schema of %s", name)
	}
}
