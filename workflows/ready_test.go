package workflows

import (
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/planmode/planmode/plan"
)

// TestPlanIndexAgreesWithThePlan drives the index through random plans
// (dependencies on earlier and unknown steps, fallbacks, duplicate ids),
// random status changes in place, as the executor makes them, and edits
// that replace the steps and bump the version, and checks after each that
// it answers as plan.Plan.StepByID, ReadyExcept and PercentOfWork do.
func TestPlanIndexAgreesWithThePlan(t *testing.T) {
	now := time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC)
	rnd := rand.New(rand.NewPCG(1, 2))
	statuses := []plan.StepStatus{plan.StepPending, plan.StepRunning, plan.StepRetrying, plan.StepCompleted,
		plan.StepFailed, plan.StepSkipped, plan.StepCancelled}
	for round := range 200 {
		p := randomPlan(rnd, rnd.IntN(30))
		var x planIndex
		for change := range 40 {
			var held []string
			for _, s := range p.Steps {
				if rnd.IntN(8) == 0 {
					held = append(held, s.ID)
				}
			}
			want := ""
			if ids := p.ReadyExcept(held); len(ids) > 0 {
				want = ids[0]
			}
			require.Equal(t, want, x.firstReady(p, held), "round %d, change %d", round, change)
			require.Equal(t, p.Progress().PercentOfWork(), x.percent(p), "round %d, change %d", round, change)
			for _, id := range []string{"s1", "s7", "s30", "nope"} {
				require.Same(t, p.StepByID(id), x.step(p, id), "round %d, change %d, step %s", round, change, id)
			}
			switch rnd.IntN(10) {
			case 0: // an edit: new steps, new version
				q := randomPlan(rnd, rnd.IntN(30))
				q.Version = p.Version + 1
				*p = *q
			case 1: // the plan's own status
				p.Status = []plan.PlanStatus{plan.PlanRunning, plan.PlanCompleted}[rnd.IntN(2)]
			default: // a status change in place, a start time with it
				if len(p.Steps) == 0 {
					continue
				}
				i := rnd.IntN(len(p.Steps))
				p.Steps[i].Status = statuses[rnd.IntN(len(statuses))]
				if rnd.IntN(2) == 0 {
					p.Steps[i].StartedAt = &now
				}
			}
		}
	}
}

// randomPlan returns a plan of n steps with random dependencies, fallbacks
// and statuses, mostly pending.
func randomPlan(rnd *rand.Rand, n int) *plan.Plan {
	p := &plan.Plan{Version: 1}
	if n == 0 {
		return p
	}
	for i := range n {
		id := fmt.Sprintf("s%d", i+1)
		if rnd.IntN(20) == 0 && i > 0 {
			id = p.Steps[rnd.IntN(i)].ID // a duplicate: the first one counts
		}
		s := plan.Step{ID: id, Status: plan.StepPending}
		for range rnd.IntN(3) {
			switch {
			case i > 0 && rnd.IntN(10) > 0:
				s.DependsOn = append(s.DependsOn, fmt.Sprintf("s%d", 1+rnd.IntN(i)))
			default:
				s.DependsOn = append(s.DependsOn, "unknown")
			}
		}
		if rnd.IntN(6) == 0 {
			s.FallbackStepID = fmt.Sprintf("s%d", 1+rnd.IntN(n))
		}
		if rnd.IntN(3) == 0 {
			s.Status = []plan.StepStatus{plan.StepCompleted, plan.StepSkipped, plan.StepFailed, plan.StepRunning}[rnd.IntN(4)]
		}
		p.Steps = append(p.Steps, s)
	}
	return p
}
