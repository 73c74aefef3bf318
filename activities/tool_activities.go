package activities

import "context"

// toolDeps are the tool side's dependencies.
type toolDeps struct{}

// RunTool runs one tool call in the workspace.
func (a *Activities) RunTool(ctx context.Context, in ToolInput) (ToolOutput, error) {
	return ToolOutput{}, errUnimplemented
}

// SnapshotWorkspace saves the workspace before execution.
func (a *Activities) SnapshotWorkspace(ctx context.Context, in SnapshotInput) (SnapshotOutput, error) {
	return SnapshotOutput{}, errUnimplemented
}

// RestoreWorkspace puts a snapshot back.
func (a *Activities) RestoreWorkspace(ctx context.Context, in RestoreInput) (RestoreOutput, error) {
	return RestoreOutput{}, errUnimplemented
}
