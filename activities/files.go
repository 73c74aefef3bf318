package activities

import (
	"context"

	"go.temporal.io/sdk/activity"

	"github.com/planmode/planmode/workspace/folders"
)

// FilesRef names the files an activity works on once a plan's files are
// recorded: the content-addressed manifest its folder is brought to first
// — on whichever worker it runs, from the blob store, only the files that
// differ — and whether it works in a step's private copy. The zero value
// works in the workspace as the worker finds it (before execution).
type FilesRef struct {
	// Manifest is the plan's (or, in a copy, the step's) manifest.
	Manifest string `json:"manifest,omitempty"`
	// Copy names the step whose private copy the activity works in: steps
	// that run side by side each change a copy of their own, merged into
	// the plan's files when they end (MergeWorkspace).
	Copy string `json:"copy,omitempty"`
}

// ref is the folders' reference of the same files.
func (r FilesRef) ref() folders.Ref { return folders.Ref{Manifest: r.Manifest, Copy: r.Copy} }

// pinFor is the plan a manifest is pinned for: the workflow id of the
// activity's plan, which a collection asks Temporal about (a plan's own id,
// plan.Plan.ID, names its selected option, not its workflow), else
// fallback outside an activity.
func pinFor(ctx context.Context, fallback string) string {
	if activity.IsActivity(ctx) {
		return activity.GetInfo(ctx).WorkflowExecution.ID
	}
	return fallback
}
