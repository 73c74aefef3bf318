package activities

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/temporal"

	"github.com/planmode/planmode/blobstore"
	"github.com/planmode/planmode/workspace"
)

// filesActivities returns activities whose plans' files are kept in an
// in-memory store, the workspace "ws" under a fresh root, and the
// manifest of that workspace holding a.txt.
func filesActivities(t *testing.T) (Set, *blobstore.Memory, string) {
	t.Helper()
	root := t.TempDir()
	require.NoError(t, os.MkdirAll(filepath.Join(root, "ws"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(root, "ws", "a.txt"), []byte("a"), 0o644))
	mem := blobstore.NewMemory()
	a := worker{Workspace: workspace.Root{Dir: root}, Files: &workspace.Files{Store: mem, StateDir: t.TempDir()}}.set()
	out, err := a.SnapshotWorkspace(context.Background(), SnapshotInput{PlanID: "p1", Workspace: "ws"})
	require.NoError(t, err)
	require.True(t, workspace.ValidManifestID(out.Manifest))
	return a, mem, out.Manifest
}

// A call changes the files and names the manifest it left; a fresh worker
// (another state folder, an empty root) brings its folder there first.
func TestRunToolRecordsWhatItChangedAndAnotherWorkerStartsFromIt(t *testing.T) {
	ctx := context.Background()
	a, mem, base := filesActivities(t)
	in := toolCall("ws", "write_file", `{"path": "b.txt", "content": "b"}`)
	in.Files = FilesRef{Manifest: base}
	out, err := a.RunTool(ctx, in)
	require.NoError(t, err)
	require.True(t, out.Success, out.Error)
	require.NotEqual(t, base, out.Manifest, "the call's change is a manifest of its own")

	other := worker{Workspace: workspace.Root{Dir: t.TempDir()}, Files: &workspace.Files{Store: mem, StateDir: t.TempDir()}}.set()
	read := toolCall("ws", "read_file", `{"path": "b.txt"}`)
	read.Files = FilesRef{Manifest: out.Manifest}
	got, err := other.RunTool(ctx, read)
	require.NoError(t, err)
	assert.True(t, got.Success, got.Error)
	assert.Equal(t, "b", got.Output, "the other worker read the file the first one wrote")
	assert.Empty(t, got.Manifest, "a read records nothing")
}

// A store that is down and a stored file that fails its hash are retried
// with the reason said; a manifest that does not exist is refused for
// good. None of them writes anything into the folder.
func TestFilesFailuresSayWhyAndWhetherToRetry(t *testing.T) {
	ctx := context.Background()
	a, mem, base := filesActivities(t)
	in := toolCall("ws", "write_file", `{"path": "b.txt", "content": "b"}`)
	in.Files = FilesRef{Manifest: base}
	out, err := a.RunTool(ctx, in)
	require.NoError(t, err)

	fresh := func() Set {
		return worker{Workspace: workspace.Root{Dir: t.TempDir()}, Files: &workspace.Files{Store: mem, StateDir: t.TempDir()}}.set()
	}
	read := toolCall("ws", "read_file", `{"path": "b.txt"}`)
	read.Files = FilesRef{Manifest: out.Manifest}

	mem.SetFail(fmt.Errorf("dial: %w", blobstore.ErrUnavailable))
	b := fresh()
	_, err = b.RunTool(ctx, read)
	mem.SetFail(nil)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "the workspace store is unavailable, nothing was written (retried)")
	assertRetryable(t, err)
	assert.NoFileExists(t, filepath.Join(b.Tools.Folders.Root.Dir, "ws", "b.txt"))

	sum := "3e23e8160039594a33894f6564e1b1348bbd7a0088d42c4acb73eeaed59c009d" // sha256("b")
	mem.Corrupt("blobs/"+sum[:2]+"/"+sum, []byte("not b"))
	c := fresh()
	_, err = c.RunTool(ctx, read)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "does not match its hash")
	assertRetryable(t, err)
	assert.NoFileExists(t, filepath.Join(c.Tools.Folders.Root.Dir, "ws", "b.txt"))

	missing := read
	missing.Files = FilesRef{Manifest: "0000000000000000000000000000000000000000000000000000000000000000"}
	_, err = fresh().RunTool(ctx, missing)
	requireAppError(t, err, ErrorTypeSnapshot, "does not exist")
}

// assertRetryable asserts err is not a non-retryable ApplicationError.
func assertRetryable(t *testing.T, err error) {
	t.Helper()
	var app *temporal.ApplicationError
	if errors.As(err, &app) {
		assert.False(t, app.NonRetryable(), "%v", err)
	}
}
