package activities

import (
	"context"

	"go.temporal.io/sdk/activity"

	"github.com/planmode/planmode/outputs"
)

// outputNameFor names an output of step stepID. Inside an activity the
// folder is the workflow id and the sequence the activity id with the
// start of the run id, which a retry keeps and a later activity or run
// does not share, so a retry replaces the same file; outside one (a direct
// call) the folder is planID and the sequence fallbackSeq.
func outputNameFor(ctx context.Context, planID, stepID string, origin outputs.Origin, fallbackSeq string) outputs.Name {
	n := outputs.Name{Run: planID, Step: stepID, Origin: origin, Seq: fallbackSeq}
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

// keepOutput saves the whole text of an output that history or the plan
// holds only a head of, and returns its path, or "" when no store is configured or the file cannot be written:
// the truncated output stands either way, and a failure is logged.
func (t *Tools) keepOutput(ctx context.Context, n outputs.Name, text string) string {
	if t.Outputs == nil {
		return ""
	}
	ref, err := t.Outputs.Save(n, text)
	if err != nil {
		logOutputError(ctx, err)
		return ""
	}
	return t.share(ctx, ref)
}

// share puts a kept output into the files store, so that any host reads
// it (planmode output), and returns its key there; without a store, or
// when the put fails (logged), the worker's own path stands.
func (t *Tools) share(ctx context.Context, path string) string {
	files := t.folders().Files
	if files == nil || t.Outputs == nil || path == "" {
		return path
	}
	key, err := t.Outputs.Share(ctx, files.Store, path)
	if err != nil {
		logOutputError(ctx, err)
		return path
	}
	return key
}

// logOutputError logs that a full output could not be kept.
func logOutputError(ctx context.Context, err error) {
	if activity.IsActivity(ctx) {
		activity.GetLogger(ctx).Warn("full output not kept", "error", err)
	}
}
