package folders

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A folder held alone (brought to a manifest) keeps others waiting only
// as long as their context allows: a wait never outlives its activity.
func TestWaitingForAFolderEndsWithTheContext(t *testing.T) {
	var mu sync.RWMutex
	mu.Lock()
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	start := time.Now()
	err := acquire(ctx, &mu, false)
	assert.ErrorIs(t, err, context.DeadlineExceeded)
	assert.Less(t, time.Since(start), 2*time.Second)
	mu.Unlock()
	require.NoError(t, acquire(context.Background(), &mu, true), "a free folder is taken at once")
}
