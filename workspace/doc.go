// Package workspace keeps plans in their workspaces: it resolves the
// workspace a plan names under the worker's root, lists its files for the
// planning prompt, and takes and restores the snapshots that make a
// rollback possible.
//
// Refusals (a workspace outside the root or the root itself, a snapshot
// too large or of another workspace) are [Refusal] errors of kind
// [ErrRejected] or [ErrSnapshot], which no retry can fix; other errors
// are faults of the worker.
package workspace
