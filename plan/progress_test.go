package plan

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
)

func TestTotalsAndPercent(t *testing.T) {
	tests := []struct {
		name    string
		plan    Plan
		totals  Totals
		percent int
	}{
		{"all pending", chain(4), Totals{Total: 4, Pending: 4}, 0},
		{"mixed", withStatus(chain(4), StepCompleted, StepSkipped, StepRetrying),
			Totals{Total: 4, Pending: 1, Running: 1, Completed: 1, Skipped: 1}, 50},
		{"rounds down", withStatus(chain(3), StepCompleted, StepCompleted), Totals{Total: 3, Pending: 1, Completed: 2}, 66},
		{"all done", withStatus(chain(2), StepFailed, StepCancelled), Totals{Total: 2, Failed: 1, Cancelled: 1}, 100},
		{"empty draft", Plan{Status: PlanDraft}, Totals{}, 0},
		{"empty completed", Plan{Status: PlanCompleted}, Totals{}, 100},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.totals, tt.plan.Progress().Totals())
			assert.Equal(t, tt.percent, tt.plan.Progress().Percent())
		})
	}
}

func TestMetricsSumResults(t *testing.T) {
	p := withStatus(chain(4), StepCompleted, StepFailed, StepSkipped)
	p.Steps[0].Result = &StepResult{Success: true, CommandsRun: 2, IterationLimitReached: true, FilesChanged: []FileChange{
		{Path: "a", Op: FileCreated, LinesAdded: 10},
		{Path: "b", Op: FileModified, LinesAdded: 3, LinesRemoved: 2},
	}}
	p.Steps[1].Result = &StepResult{Error: "boom", CommandsRun: 1, FilesChanged: []FileChange{{Path: "c", Op: FileDeleted, LinesRemoved: 5}}}
	assert.Equal(t, Metrics{
		StepsCompleted: 1, StepsFailed: 1, StepsSkipped: 1,
		FilesCreated: 1, FilesModified: 1, FilesDeleted: 1,
		LinesChanged: 20, CommandsRun: 3, Errors: 1, Warnings: 1,
	}, p.Progress().Metrics())
}

func TestEstimatedRemaining(t *testing.T) {
	p := withStatus(chain(4), StepCompleted, StepRunning)
	for i := range p.Steps {
		p.Steps[i].Estimated = Duration(time.Duration(i+1) * time.Minute)
	}
	assert.Equal(t, Duration(9*time.Minute), p.Progress().EstimatedRemaining(), "2+3+4 minutes")
	assert.Equal(t, Duration(0), (&Plan{}).Progress().EstimatedRemaining())
}
