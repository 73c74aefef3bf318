package offline

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/planmode/planmode/llm/reply"
	"github.com/planmode/planmode/plan"
)

// resultLine is the reflect prompt's "Result of step s2: succeeded" or
// "…: FAILED (stopped at its iteration limit)".
var resultLine = regexp.MustCompile(`(?im)^Result of step (\S+): (succeeded|failed)(.*)$`)

// reflect answers the reflect phase: always continue, with a reason that
// says what happened to the step and what comes next. Recovering from a
// failure is left to the step's retries and fallback and to the user.
func (b *OfflineBrain) reflect(v view) Reply {
	id, outcome, limit := "the step", "ended", false
	if m := resultLine.FindStringSubmatch(v.user); m != nil {
		id, outcome = m[1], strings.ToLower(m[2])
		limit = strings.Contains(m[3], "iteration limit")
	}
	remaining := listAfter(v.user, "Steps not done yet")
	if len(remaining) == 0 && !strings.Contains(v.user, "No steps remain") {
		remaining = listAfter(v.user, "Steps after this one")
	}
	next := "no steps remain"
	if len(remaining) > 0 {
		next = "going on with " + remaining[0]
	}
	var reason string
	switch {
	case outcome == "failed":
		errText := labelled(v.user, "error")
		if errText == "" {
			errText = "no error was reported"
		}
		reason = fmt.Sprintf("Step %s failed (%s). The failure may be transient, so a retry makes sense; "+
			"the offline model cannot diagnose it and continues, %s.", id, plan.Truncate(errText, 200), next)
	case limit:
		reason = fmt.Sprintf("Step %s stopped at its iteration limit; its partial result stands and the run continues, %s.", id, next)
	default:
		reason = fmt.Sprintf("Step %s %s as planned; %s.", id, outcome, next)
	}
	return JSONReply(reply.Reflect{Decision: plan.DecisionContinue, Reason: reason + " (offline model)"})
}
