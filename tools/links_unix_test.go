//go:build unix

package tools

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// hardLinkedSecret puts a secret file outside a fresh workspace and a hard
// link to it inside, as "linked.txt", and returns the workspace and the
// secret's path.
func hardLinkedSecret(t *testing.T) (*Sandbox, string) {
	t.Helper()
	sb := newWorkspace(t, map[string]string{"plain.txt": "plain\n"})
	// Same filesystem as the workspace: hard links cannot cross one.
	outside := filepath.Join(filepath.Dir(sb.Root()), "outside-"+filepath.Base(sb.Root()))
	require.NoError(t, os.Mkdir(outside, 0o700))
	t.Cleanup(func() { os.RemoveAll(outside) })
	secret := filepath.Join(outside, "secret.txt")
	require.NoError(t, os.WriteFile(secret, []byte("TOP-SECRET hard link canary\n"), 0o600))
	if err := os.Link(secret, filepath.Join(sb.Root(), "linked.txt")); err != nil {
		t.Skipf("cannot make a hard link here: %v", err)
	}
	return sb, secret
}

func TestReadFileRefusesHardLinks(t *testing.T) {
	sb, _ := hardLinkedSecret(t)
	_, err := call(t, Builtin(DefaultConfig()), sb, "read_file", `{"path":"linked.txt"}`)
	requireToolError(t, err, "read linked.txt: the file has 2 hard links")
	assert.NotContains(t, err.Error(), "TOP-SECRET")

	_, err = sb.ReadFile("linked.txt", 0)
	requireToolError(t, err, "hard links")
}

func TestWriteFileRefusesHardLinks(t *testing.T) {
	sb, secret := hardLinkedSecret(t)
	_, err := call(t, Builtin(DefaultConfig()), sb, "write_file", `{"path":"linked.txt","content":"overwritten\n"}`)
	requireToolError(t, err, "write linked.txt: the file has 2 hard links")
	data, err := os.ReadFile(secret)
	require.NoError(t, err)
	assert.Equal(t, "TOP-SECRET hard link canary\n", string(data), "the other name keeps its content")
	assert.Equal(t, "TOP-SECRET hard link canary\n", readFile(t, sb, "linked.txt"), "the workspace name is left as it was")
}

func TestSearchCodeSkipsHardLinks(t *testing.T) {
	sb, _ := hardLinkedSecret(t)
	res, err := call(t, Builtin(DefaultConfig()), sb, "search_code", `{"pattern":"SECRET|plain"}`)
	require.NoError(t, err)
	assert.Equal(t, "plain.txt:1: plain", res.Output, "a hard-linked file is not searched")
}

func TestDeleteFileRemovesOnlyTheWorkspaceName(t *testing.T) {
	sb, secret := hardLinkedSecret(t)
	res, err := call(t, Builtin(DefaultConfig()), sb, "delete_file", `{"path":"linked.txt"}`)
	require.NoError(t, err)
	assert.Equal(t, "deleted linked.txt (-0 lines)", res.Output, "the content behind the link is not read")
	assert.NoFileExists(t, filepath.Join(sb.Root(), "linked.txt"))
	assert.FileExists(t, secret)
}
