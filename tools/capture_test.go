package tools

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// failingWriter fails every write, as a full disk does.
type failingWriter struct{ calls int }

func (f *failingWriter) Write([]byte) (int, error) {
	f.calls++
	return 0, errors.New("no space left on device")
}

func TestCaptureKeepsHeadAndTailAndPassesEverythingOn(t *testing.T) {
	var full bytes.Buffer
	c := &capture{max: 10, full: &full}
	for _, part := range []string{"abcdef", "ghijklmnop", "qrstuvwxyz"} {
		n, err := c.Write([]byte(part))
		require.NoError(t, err)
		assert.Equal(t, len(part), n)
	}
	out, cut := c.Output()
	assert.True(t, cut)
	assert.Equal(t, "abcde\n… [16 bytes omitted] …\nvwxyz", out)
	assert.Equal(t, "abcdefghijklmnopqrstuvwxyz", full.String())
}

func TestCaptureIgnoresAFailingFullWriter(t *testing.T) {
	w := &failingWriter{}
	c := &capture{max: 100, full: w}
	n, err := c.Write([]byte("hello"))
	require.NoError(t, err, "the command's pipe never sees the writer's error")
	assert.Equal(t, 5, n)
	assert.Equal(t, 1, w.calls)
}

func TestRunCommandStreamsTheWholeOutput(t *testing.T) {
	requireBinary(t, "cat")
	big := strings.Repeat("0123456789\n", 2000)
	sb := newWorkspace(t, map[string]string{"big.txt": big})
	cfg := cmdConfig()
	cfg.MaxOutputBytes = 100
	tool, ok := Builtin(cfg).Get("run_command")
	require.True(t, ok)
	var full bytes.Buffer
	res, err := tool.Run(context.Background(), Env{Root: sb, FullOutput: &full},
		json.RawMessage(`{"command":"cat","args":["big.txt"]}`))
	require.NoError(t, err)
	assert.True(t, res.Truncated)
	assert.Less(t, len(res.Output), 200)
	assert.Equal(t, big, full.String())
}
