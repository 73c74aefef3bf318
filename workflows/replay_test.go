package workflows_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/worker"
	"go.temporal.io/sdk/workflow"

	"github.com/planmode/planmode/signals"
	"github.com/planmode/planmode/worker/planworker"
)

// baseline is the recorded baseline: one history per workflow type the
// worker registers and per way it ends (the TestRecord tests write
// them). A run whose history is here must replay on today's code: a
// change that makes a workflow issue other commands for the same history
// fails TestReplayBaseline before it breaks a run in flight.
var baseline = []struct {
	file         string
	workflowType string
	ending       enumspb.EventType
}{
	{"planmode-completed.json", signals.WorkflowType, enumspb.EVENT_TYPE_WORKFLOW_EXECUTION_COMPLETED},
	{"planmode-failed.json", signals.WorkflowType, enumspb.EVENT_TYPE_WORKFLOW_EXECUTION_FAILED},
	{"planmode-cancelled.json", signals.WorkflowType, enumspb.EVENT_TYPE_WORKFLOW_EXECUTION_CANCELED},
	{"planmode-continued.json", signals.WorkflowType, enumspb.EVENT_TYPE_WORKFLOW_EXECUTION_CONTINUED_AS_NEW},
	// The plans' files as manifests: steps side by side merged, a
	// rollback to a step, the end's sync of the folder; and a fork.
	{"planmode-files.json", signals.WorkflowType, enumspb.EVENT_TYPE_WORKFLOW_EXECUTION_COMPLETED},
	{"planmode-forked.json", signals.WorkflowType, enumspb.EVENT_TYPE_WORKFLOW_EXECUTION_COMPLETED},
	{"plannotify-completed.json", signals.NotifyWorkflowType, enumspb.EVENT_TYPE_WORKFLOW_EXECUTION_COMPLETED},
	{"planrollback-completed.json", signals.RollbackWorkflowType, enumspb.EVENT_TYPE_WORKFLOW_EXECUTION_COMPLETED},
	{"planworkspacelease-continued.json", signals.LeaseWorkflowType, enumspb.EVENT_TYPE_WORKFLOW_EXECUTION_CONTINUED_AS_NEW},
}

// replayer takes what planworker.Register registers on a worker, the
// workflows only: the replay runs the worker's own workflow types under
// their names, and types says which. The embedded Registry is nil: a
// registration of another kind would panic here, and so be noticed.
type replayer struct {
	worker.Registry
	replay worker.WorkflowReplayer
	types  []string
}

func (r *replayer) RegisterWorkflowWithOptions(w any, o workflow.RegisterOptions) {
	r.types = append(r.types, o.Name)
	r.replay.RegisterWorkflowWithOptions(w, o)
}

// RegisterActivity drops the activities: a replay runs none.
func (*replayer) RegisterActivity(any) {}

func newReplayer() *replayer {
	r := &replayer{replay: worker.NewWorkflowReplayer()}
	planworker.Register(r, nil)
	return r
}

// TestReplayBaseline replays every recorded history under its recorded
// workflow and run ids (which name a plan's webhook children), after
// checking that it is the type and ending the baseline says.
func TestReplayBaseline(t *testing.T) {
	r := newReplayer()
	for _, b := range baseline {
		t.Run(b.file, func(t *testing.T) {
			f, err := os.Open(filepath.Join("testdata", b.file))
			require.NoError(t, err)
			defer f.Close()
			hist, err := client.HistoryFromJSON(f, client.HistoryJSONOptions{})
			require.NoError(t, err)
			events := hist.GetEvents()
			started := events[0].GetWorkflowExecutionStartedEventAttributes()
			require.Equal(t, b.workflowType, started.GetWorkflowType().GetName())
			require.Equal(t, b.ending, events[len(events)-1].GetEventType())
			for _, e := range events {
				// A baseline is cut with every GetVersion folded, so a
				// GetVersion added later replays it on its default branch.
				require.NotEqual(t, "Version", e.GetMarkerRecordedEventAttributes().GetMarkerName(), "a version marker in the baseline")
			}
			exec := workflow.Execution{ID: started.GetWorkflowId(), RunID: started.GetOriginalExecutionRunId()}
			require.NotEmpty(t, exec.ID)

			require.NoError(t, r.replay.ReplayWorkflowHistoryWithOptions(nil, hist, worker.ReplayWorkflowHistoryOptions{OriginalExecution: exec}))
		})
	}
}

// TestReplayBaselineCoversTheWorker checks that the baseline has a history for
// every workflow type the worker registers, PlanMode for each of its
// endings, and that testdata holds no other history.
func TestReplayBaselineCoversTheWorker(t *testing.T) {
	var types, files []string
	for _, b := range baseline {
		types = append(types, b.workflowType)
		files = append(files, b.file)
	}
	for _, wt := range newReplayer().types {
		assert.Contains(t, types, wt, "no recorded history of %s", wt)
	}
	var endings []enumspb.EventType
	for _, b := range baseline {
		if b.workflowType == signals.WorkflowType {
			endings = append(endings, b.ending)
		}
	}
	assert.ElementsMatch(t, []enumspb.EventType{enumspb.EVENT_TYPE_WORKFLOW_EXECUTION_COMPLETED,
		enumspb.EVENT_TYPE_WORKFLOW_EXECUTION_FAILED, enumspb.EVENT_TYPE_WORKFLOW_EXECUTION_CANCELED,
		enumspb.EVENT_TYPE_WORKFLOW_EXECUTION_CONTINUED_AS_NEW}, slices.Compact(slices.Sorted(slices.Values(endings))),
		"PlanMode ends four ways")

	onDisk, err := filepath.Glob(filepath.Join("testdata", "*.json"))
	require.NoError(t, err)
	for i, p := range onDisk {
		onDisk[i] = filepath.Base(p)
	}
	slices.Sort(files)
	assert.Equal(t, files, onDisk, "testdata holds the baseline, nothing else")
}

// TestRecordedCheckpointEncodesAsRecorded decodes the checkpoint a
// recorded run handed its continuation and encodes it again: the bytes are
// the recorded ones, whichever part of the run owns which field now.
func TestRecordedCheckpointEncodesAsRecorded(t *testing.T) {
	f, err := os.Open(filepath.Join("testdata", "planmode-continued.json"))
	require.NoError(t, err)
	defer f.Close()
	hist, err := client.HistoryFromJSON(f, client.HistoryJSONOptions{})
	require.NoError(t, err)
	events := hist.GetEvents()
	input := events[len(events)-1].GetWorkflowExecutionContinuedAsNewEventAttributes().GetInput().GetPayloads()
	require.Len(t, input, 1)
	var raw struct {
		Checkpoint json.RawMessage `json:"checkpoint"`
	}
	require.NoError(t, json.Unmarshal(input[0].GetData(), &raw))
	require.NotEmpty(t, raw.Checkpoint)

	var cp signals.Checkpoint
	require.NoError(t, json.Unmarshal(raw.Checkpoint, &cp))
	require.NotNil(t, cp.Plan, "the recorded run continued while executing")
	again, err := json.Marshal(cp)
	require.NoError(t, err)
	assert.Equal(t, string(raw.Checkpoint), string(again))
}
