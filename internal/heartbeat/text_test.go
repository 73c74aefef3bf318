package heartbeat

import (
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/require"

	"github.com/planmode/planmode/signals"
)

func TestTheTextKeptIsABoundedTail(t *testing.T) {
	mt := &Text{phase: "plan"}
	var whole strings.Builder
	for i := range 3000 {
		d := fmt.Sprintf("%d: ünïcode ✓ ", i)
		if i == 1500 {
			d = strings.Repeat("€", signals.MaxModelTextBytes) // one delta longer than the tail
		}
		whole.WriteString(d)
		mt.write(d)
		require.Equal(t, 2*signals.MaxModelTextBytes, cap(mt.buf), "the buffer never grows")

		got := mt.current()
		require.Equal(t, int64(whole.Len()), got.Bytes)
		require.True(t, strings.HasSuffix(whole.String(), got.Text), "the text is the end of the whole")
		require.True(t, utf8.ValidString(got.Text), "cut on a rune boundary")
		require.LessOrEqual(t, len(got.Text), signals.MaxModelTextBytes)
		require.Greater(t, len(got.Text), min(whole.Len(), signals.MaxModelTextBytes)-utf8.UTFMax)
	}
}
