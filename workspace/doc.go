// Package workspace keeps plans in their workspaces: it resolves the
// workspace a plan names under the worker's root, lists its files for the
// planning prompt, and takes and restores the snapshots that make a
// rollback possible.
//
// Commands of parallel steps change a workspace while the worker, outside
// their sandbox, snapshots or restores it. So the worker opens workspace
// paths only through [os.Root] handles, one folder at a time, and checks
// each entry it opens is the one it listed: an entry swapped for a
// symlink is never followed out. The snapshot store is reached through an
// os.Root too. A snapshot records symlinks as symlinks, and leaves out
// (and lists) what the file tools refuse too: hard-linked files, fifos,
// sockets and devices, symlinks that may lead outside.
//
// [Files] keeps workspaces durable: a folder is recorded as a
// content-addressed manifest in a blob store (file blobs by their
// SHA-256, the manifest under the hash of its JSON), synced back into any
// worker's folder, merged three ways after steps ran side by side, forked
// by adoption, and collected once no plan references it. A stat cache in
// the worker's private state folder keeps a record to the files that
// changed.
//
// Refusals (a workspace outside the root or the root itself, a snapshot
// too large or of another workspace) are [Refusal] errors of kind
// [ErrRejected] or [ErrSnapshot], which no retry can fix; other errors
// are faults of the worker.
package workspace
