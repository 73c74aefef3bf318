//go:build unix

package tools

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestWriteFileRespectsLimits(t *testing.T) {
	const mib = 1 << 20
	tests := []struct {
		name   string
		limits Limits
		files  map[string]string
		path   string
		size   int
		reject string
	}{
		{name: "growth", limits: Limits{GrowthBytes: mib}, path: "big", size: 2 * mib,
			reject: "would grow the workspace by 2 MiB, over the limit of 1 MiB (tools.limits.growthBytes)"},
		{name: "the whole workspace", limits: Limits{WorkspaceBytes: 3 * mib},
			files: map[string]string{"old": strings.Repeat("x", 5*mib/2)}, path: "new", size: mib,
			reject: "over the limit of 3 MiB (tools.limits.workspaceBytes)"},
		{name: "one file", limits: Limits{FileBytes: mib}, path: "big", size: 2 * mib,
			reject: "over the file size limit of 1 MiB (tools.limits.fileBytes)"},
		{name: "a replaced file counts its growth only", limits: Limits{WorkspaceBytes: 3 * mib},
			files: map[string]string{"old": strings.Repeat("x", 5*mib/2)}, path: "old", size: 5*mib/2 + 1000},
		{name: "shrinking a workspace over its limit", limits: Limits{WorkspaceBytes: mib},
			files: map[string]string{"old": strings.Repeat("x", 2*mib)}, path: "old", size: 10},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			sb := newWorkspace(t, tt.files)
			before := snapshotTree(t, sb.Root())
			raw, err := json.Marshal(map[string]string{"path": tt.path, "content": strings.Repeat("y", tt.size)})
			require.NoError(t, err)
			_, err = call(t, Builtin(Config{Limits: tt.limits}), sb, "write_file", string(raw))
			if tt.reject == "" {
				require.NoError(t, err)
				assert.Equal(t, strings.Repeat("y", tt.size), readFile(t, sb, tt.path))
				return
			}
			requireToolError(t, err, tt.reject)
			assert.Equal(t, before, snapshotTree(t, sb.Root()), "the workspace is as it was")
		})
	}
}
