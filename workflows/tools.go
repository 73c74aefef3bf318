package workflows

import (
	"fmt"

	"go.temporal.io/sdk/workflow"

	"github.com/planmode/planmode/signals"
)

// recordingTools starts recording, once per chain of runs, the worker's
// approval policy and MCP catalogue, so that replays and other workers
// decide and offer what this plan saw: a future recordTools takes, nil
// when the chain has them. It is a local activity, since it only reads
// the worker's memory: its answer is one marker event, with no task to
// schedule and no workflow task when it ends.
func (r *run) recordingTools(ctx workflow.Context) workflow.Future {
	if r.st.Tools != nil {
		return nil
	}
	return workflow.ExecuteLocalActivity(workerCtx(ctx, "record the worker's approval policy and MCP tools"), a.RecordTools)
}

// recordTools keeps what recording (recordingTools) recorded in the
// checkpoint, and lets plans name the recorded MCP tools.
func (r *run) recordTools(ctx workflow.Context, recording workflow.Future) error {
	if recording != nil {
		var out signals.RecordedTools
		if err := recording.Get(ctx, &out); err != nil {
			return fmt.Errorf("record tools: %w", err)
		}
		r.st.Tools = &out
		for _, p := range out.MCPProblems {
			workflow.GetLogger(ctx).Warn("MCP tools left out", "problem", p)
		}
	}
	r.lim.Tools = r.recorded().names()
	return nil
}
