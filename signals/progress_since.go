package signals

import (
	"encoding/json"
	"time"

	"github.com/planmode/planmode/plan"
)

// Since returns p, the progress a batch written at at carried, as it
// stands at now after later, the events of the batches the run wrote
// since, oldest first: their model usage added (a usage event is what one
// activity's calls used), and the time since at counted as elapsed, or as
// paused while the plan is paused. What p does not learn from later (a
// step started or ended since at) is at most as far behind as the
// plan's search attributes are.
func (p Progress) Since(at, now time.Time, later []Event) Progress {
	for _, e := range later {
		if e.Type != EventUsage {
			continue
		}
		var u plan.Usage
		if json.Unmarshal(e.Data, &u) == nil {
			p.Usage = p.Usage.Add(u)
		}
	}
	p.Tokens, p.CostUSD = p.Usage.TotalTokens, p.Usage.CostUSD
	if d := now.Sub(at); d > 0 && !p.Phase.Terminal() {
		if p.Paused {
			p.PausedFor += plan.Duration(d)
		} else {
			p.Elapsed += plan.Duration(d)
		}
	}
	return p
}
