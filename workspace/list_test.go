package workspace

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/planmode/planmode/plan"
)

func TestListFilesBounded(t *testing.T) {
	root := t.TempDir()
	for i := 0; i < 60; i++ {
		require.NoError(t, os.WriteFile(filepath.Join(root, fmt.Sprintf("f%02d.go", i)), nil, 0o600))
	}
	for _, dir := range []string{".git", "node_modules"} {
		require.NoError(t, os.MkdirAll(filepath.Join(root, dir), 0o700))
		require.NoError(t, os.WriteFile(filepath.Join(root, dir, "a00.txt"), nil, 0o600))
	}
	files, more := ListFiles(plan.TaskContext{WorkspaceRoot: root})
	assert.Len(t, files, maxListedFiles)
	assert.True(t, more)
	assert.Equal(t, "f00.go", files[0])
	for _, f := range files {
		assert.False(t, strings.Contains(f, ".git") || strings.Contains(f, "node_modules"), f)
	}

	given, more := ListFiles(plan.TaskContext{WorkspaceRoot: root, CurrentFiles: []string{"x.go"}})
	assert.Equal(t, []string{"x.go"}, given)
	assert.False(t, more)
	none, _ := ListFiles(plan.TaskContext{WorkspaceRoot: filepath.Join(root, "missing")})
	assert.Empty(t, none)
}
