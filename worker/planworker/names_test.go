package planworker

import (
	"context"
	"errors"
	"sort"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/temporal"
	sdktest "go.temporal.io/sdk/testsuite"
	sdkworker "go.temporal.io/sdk/worker"
	"go.temporal.io/sdk/workflow"

	"github.com/planmode/planmode/internal/config"
	"github.com/planmode/planmode/llm"
	"github.com/planmode/planmode/llm/openai"
)

// activityNames are the activity types a worker registers, by which
// histories name the activities their plans scheduled: a name gone or
// renamed fails the replay of every open plan that used it. They are the
// exported methods of the one activities type the activities were before
// they split by what they serve, and may only grow.
var activityNames = []string{
	"AcquireWorkspace", "AgentTurn", "CallMCPTool", "Clarify", "ExecuteLLMStep", "ForkSource", "ForkWorkspace",
	"GenerateOptions", "GoalAttr", "ListMCPTools", "MergeWorkspace", "Notify", "PlanEnd", "PlanPriority", "Receiver", "RecordTools",
	"Reflect", "RestoreWorkspace", "RunTool", "SnapshotWorkspace", "Summarize", "WorkspaceChangedSince",
}

// activityRegistry takes the activities Register registers into the SDK's
// test environment, which refuses a name registered twice and a method
// that is no activity, as a worker does.
type activityRegistry struct {
	sdkworker.Registry
	env *sdktest.TestActivityEnvironment
}

func (activityRegistry) RegisterWorkflowWithOptions(any, workflow.RegisterOptions) {}
func (r activityRegistry) RegisterActivity(a any)                                  { r.env.RegisterActivity(a) }

// registeredActivities returns the activity types the SDK holds once
// Register ran, as it lists them for an activity it does not know.
func registeredActivities(t *testing.T, a *Activities) []string {
	t.Helper()
	var suite sdktest.WorkflowTestSuite
	env := suite.NewTestActivityEnvironment()
	Register(activityRegistry{env: env}, a)
	_, err := env.ExecuteActivity("NoSuchActivity")
	var app *temporal.ApplicationError
	require.True(t, errors.As(err, &app), "%v", err)
	const list = "Supported types: ["
	msg := app.Message()
	i := strings.Index(msg, list)
	require.GreaterOrEqual(t, i, 0, msg)
	names := strings.Split(msg[i+len(list):strings.LastIndex(msg, "]")], ", ")
	sort.Strings(names)
	return names
}

// The activities keep their names, and so histories replay, however the
// types that hold them are split.
func TestRegisterKeepsTheActivityNames(t *testing.T) {
	assert.Equal(t, activityNames, registeredActivities(t, NewActivities(config.Config{}, llm.Config{}, true)))
	assert.Equal(t, activityNames, registeredActivities(t, nil), "what the replayer registers")
}

// Without a model configured, or with a configuration the adapter
// refuses, every LLM call fails for good and says why.
func TestNewLLMSaysWhyThereIsNone(t *testing.T) {
	for name, tt := range map[string]struct {
		cfg  llm.Config
		says string
	}{
		"none":    {llm.Config{}, "no LLM is configured"},
		"bad url": {llm.Config{BaseURL: "ftp://x", Model: "m"}, "the LLM is misconfigured"},
	} {
		t.Run(name, func(t *testing.T) {
			_, err := NewLLM(tt.cfg).Complete(context.Background(), llm.Request{Phase: llm.PhaseSummarize})
			var app *temporal.ApplicationError
			require.ErrorAs(t, err, &app)
			assert.Equal(t, string(llm.ErrorTypeConfig), app.Type())
			assert.True(t, app.NonRetryable())
			assert.Contains(t, app.Message(), tt.says)
		})
	}
}

// The activities' model is the one given, else the go-openai adapter
// built from the configuration.
func TestTheModelIsTheAdapterUnlessGiven(t *testing.T) {
	given := NewLLM(llm.Config{})
	assert.Equal(t, given, (&Activities{LLM: given}).Set().Model.LLM)
	built := (&Activities{LLMConfig: llm.Config{BaseURL: "http://127.0.0.1:1/v1", Model: "m"}}).Set().Model.LLM
	_, isAdapter := built.(*openai.Client)
	assert.True(t, isAdapter, "without a model the adapter is built from the configuration")
	set := NewActivities(config.Config{}, llm.Config{Model: "m"}, true).Set()
	assert.Same(t, set.Tools, set.Model.Tools, "the model looks through the tools the worker runs")
	assert.Same(t, set.Tools.Folders, set.Workspaces.Folders, "tools and workspaces share the worker's folders")
}
