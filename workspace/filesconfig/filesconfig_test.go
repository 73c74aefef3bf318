package filesconfig

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/planmode/planmode/internal/config"
)

func TestOpenWithoutAStoreIsNil(t *testing.T) {
	files, err := Open(config.Workspace{})
	require.NoError(t, err)
	assert.Nil(t, files)
}

func TestOpenNamesTheKeyOfABadStore(t *testing.T) {
	_, err := Open(config.Workspace{Store: "ftp://example.com/store"})
	require.Error(t, err)
	assert.Contains(t, err.Error(), config.KeyStore+": ")
}

func TestOpenAFolder(t *testing.T) {
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	dir := t.TempDir()
	files, err := Open(config.Workspace{Store: dir, MaxFiles: 7, SnapshotLimit: 1 << 20})
	require.NoError(t, err)
	require.NotNil(t, files)
	assert.NotNil(t, files.Store)
	assert.Equal(t, config.StateDir(), files.StateDir)
	assert.Equal(t, 7, files.MaxFiles)
	assert.Equal(t, int64(1<<20), files.MaxBytes)
}
