package signals_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/api/operatorservice/v1"
	"go.temporal.io/api/workflowservice/v1"
	"google.golang.org/protobuf/types/known/durationpb"

	"github.com/planmode/planmode/signals"
	"github.com/planmode/planmode/testsuite"
)

func TestEnsureSearchAttributesRegistersWhatANamespaceLacks(t *testing.T) {
	srv := testsuite.StartDevServer(t)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	ns := "sa-" + testsuite.TaskQueue(t)
	_, err := srv.Client.WorkflowService().RegisterNamespace(ctx, &workflowservice.RegisterNamespaceRequest{
		Namespace:                        ns,
		WorkflowExecutionRetentionPeriod: durationpb.New(24 * time.Hour),
	})
	require.NoError(t, err)
	list := func() map[string]enumspb.IndexedValueType {
		res, err := srv.Client.OperatorService().ListSearchAttributes(ctx, &operatorservice.ListSearchAttributesRequest{Namespace: ns})
		require.NoError(t, err)
		return res.GetCustomAttributes()
	}
	require.NotContains(t, list(), signals.PhaseAttr.GetName(), "a new namespace starts without them")

	require.NoError(t, signals.EnsureSearchAttributes(ctx, srv.Client, ns))
	got := list()
	for _, k := range signals.SearchAttributes {
		assert.Equal(t, k.GetValueType(), got[k.GetName()], k.GetName())
	}
	require.NoError(t, signals.EnsureSearchAttributes(ctx, srv.Client, ns), "a second call finds nothing to add")
}

func TestGoalAttrValueStaysWithinTheServerLimit(t *testing.T) {
	tests := []struct {
		name, goal, want string
	}{
		{"short", "Add JWT authentication", "Add JWT authentication"},
		{"spaces collapse", "  Add JWT\n\tauthentication  ", "Add JWT authentication"},
		{"empty", "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, signals.GoalAttrValue(tt.goal))
		})
	}
	long := map[string]string{
		"ascii":   strings.Repeat("word ", 1000),
		"escaped": strings.Repeat("<a&b> \"q\" ", 500),
		"utf8":    strings.Repeat("établir l’accès ", 400),
		"control": strings.Repeat("x\x01", 2000),
		"invalid": strings.Repeat("a\xff", 2000),
	}
	for name, goal := range long {
		t.Run(name, func(t *testing.T) {
			v := signals.GoalAttrValue(goal)
			b, err := json.Marshal(v)
			require.NoError(t, err)
			assert.LessOrEqual(t, len(b), signals.MaxGoalAttrBytes)
			assert.Greater(t, len(b), signals.MaxGoalAttrBytes-16, "cut no shorter than needed")
			assert.True(t, strings.HasSuffix(v, " …"), "a cut value says so")
		})
	}
}

func TestNormalizeGoalCollapsesSpacesOnly(t *testing.T) {
	assert.Equal(t, "Add JWT auth", signals.NormalizeGoal("  Add\tJWT\n\n auth "))
	assert.Equal(t, "Add JWT auth", signals.NormalizeGoal("Add JWT auth"), "a normal goal stays as it is")
	long := strings.Repeat("word ", 1000)
	assert.Equal(t, strings.TrimSpace(long), signals.NormalizeGoal(long), "never cut: a digest covers the whole goal")
	assert.Equal(t, signals.GoalAttrValue("  Add\tJWT auth "), signals.NormalizeGoal("  Add\tJWT auth "),
		"a short goal is held as it is compared")
}
