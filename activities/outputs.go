package activities

import (
	"context"
	"strings"

	"go.temporal.io/sdk/activity"

	"github.com/planmode/planmode/outputs"
)

// outputDeps holds the output store; nil keeps no full outputs.
type outputDeps struct {
	outputs *outputs.Store
}

// WithOutputStore keeps the whole of every output that is truncated for
// workflow history in a file under dir, and puts the file's absolute path
// in the result's OutputRef. An empty dir keeps nothing, as does leaving
// the option out. With several workers dir should be a shared volume
// mounted at the same path on each, so that every ref can be read
// wherever the plan is looked at.
func WithOutputStore(dir string) Option {
	return func(a *Activities) {
		if strings.TrimSpace(dir) == "" {
			a.outputs = nil
			return
		}
		a.outputs = outputs.New(dir)
	}
}

// outputNameFor names an output of step stepID. Inside an activity the
// folder is the workflow id and the sequence the activity id with the
// start of the run id, which a retry keeps and a later activity or run
// does not share, so a retry replaces the same file; outside one (a direct
// call) the folder is planID and the sequence fallbackSeq.
func outputNameFor(ctx context.Context, planID, stepID string, kind outputs.Kind, fallbackSeq string) outputs.Name {
	n := outputs.Name{Run: planID, Step: stepID, Kind: kind, Seq: fallbackSeq}
	if activity.IsActivity(ctx) {
		info := activity.GetInfo(ctx)
		n.Run = info.WorkflowExecution.ID
		n.Seq = info.ActivityID
		if run := info.WorkflowExecution.RunID; run != "" {
			n.Seq += "-" + run[:min(8, len(run))]
		}
	}
	return n
}

// keepOutput saves the whole text of a truncated output and returns its
// path, or "" when no store is configured or the file cannot be written:
// the truncated output stands either way, and a failure is logged.
func (a *Activities) keepOutput(ctx context.Context, n outputs.Name, text string) string {
	if a.outputs == nil {
		return ""
	}
	ref, err := a.outputs.Save(n, text)
	if err != nil {
		logOutputError(ctx, err)
		return ""
	}
	return ref
}

// logOutputError logs that a full output could not be kept.
func logOutputError(ctx context.Context, err error) {
	if activity.IsActivity(ctx) {
		activity.GetLogger(ctx).Warn("full output not kept", "error", err)
	}
}
