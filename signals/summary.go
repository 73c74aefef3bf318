package signals

import (
	"strings"

	"github.com/planmode/planmode/plan"
)

// MaxStaticSummaryBytes bounds the one-line summary the Web UI shows beside
// a run. The server refuses a start whose summary is too large (400 bytes
// by default), so it stays well below.
const MaxStaticSummaryBytes = 200

// StaticSummary returns the one-line summary of a run for goal: its first
// line, spaces collapsed, cut to MaxStaticSummaryBytes with an ellipsis.
func StaticSummary(goal string) string {
	line, _, more := strings.Cut(strings.TrimSpace(goal), "\n")
	line = strings.Join(strings.Fields(line), " ")
	if more {
		line += " …"
	}
	return plan.TruncateBytes(line, MaxStaticSummaryBytes)
}
