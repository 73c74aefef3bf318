package outputs

import (
	"context"
	"io"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/planmode/planmode/blobstore"
)

func TestShareOutputsIntoAStoreAndPruneThem(t *testing.T) {
	ctx := context.Background()
	s := New(t.TempDir())
	path, err := s.Save(Name{Run: "plan-1", Step: "s1", Origin: FromTool, Seq: "7"}, "the whole output")
	require.NoError(t, err)
	mem := blobstore.NewMemory()
	then := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	mem.Now = func() time.Time { return then }
	key, err := s.Share(ctx, mem, path)
	require.NoError(t, err)
	assert.Regexp(t, `^outputs/plan-1/`, key)
	r, err := mem.Get(ctx, key)
	require.NoError(t, err)
	data, _ := io.ReadAll(r)
	assert.Equal(t, "the whole output", string(data))

	_, err = s.Share(ctx, mem, "/etc/passwd")
	assert.Error(t, err, "only the store's own files are shared")

	n, err := PruneShared(ctx, mem, then.Add(time.Hour), 2*time.Hour)
	require.NoError(t, err)
	assert.Zero(t, n, "within the retention")
	n, err = PruneShared(ctx, mem, then.Add(3*time.Hour), 2*time.Hour)
	require.NoError(t, err)
	assert.Equal(t, 1, n)
	_, err = mem.Stat(ctx, key)
	assert.ErrorIs(t, err, blobstore.ErrNotFound)
}
