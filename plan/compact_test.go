package plan

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// doneChain is a plan of n steps, the first done ones completed with
// outputs of out bytes, the rest pending.
func doneChain(n, done, out int) Plan {
	p := Plan{ID: "p", Title: "Chain"}
	for i := 1; i <= n; i++ {
		s := Step{ID: fmt.Sprintf("s%d", i), Number: i, Title: fmt.Sprintf("step %d", i), Action: ActionLLM, Status: StepPending}
		if i <= done {
			s.Status = StepCompleted
			s.Result = &StepResult{Success: true, Output: strings.Repeat("o", out), Error: strings.Repeat("e", 3*KeptErrorBytes)}
		}
		p.Steps = append(p.Steps, s)
	}
	return p
}

func TestCompactResultKeepsAHead(t *testing.T) {
	p := doneChain(3, 1, 4000)
	before := BuildStepContext("g", &p, "s2")

	require.True(t, p.CompactResult("s1"))
	r := p.Steps[0].Result
	assert.Len(t, r.Output, KeptOutputBytes)
	assert.True(t, r.OutputTruncated)
	assert.Len(t, r.Error, KeptErrorBytes)
	assert.Equal(t, before, BuildStepContext("g", &p, "s2"), "the next step's context reads the same")
	assert.False(t, p.CompactResult("s1"), "nothing more to cut")
}

func TestCompactResultLeavesWhatIsStillNeeded(t *testing.T) {
	p := doneChain(3, 1, 4000)
	p.Steps[2].SkipCondition = `s1.output contains "needle"`
	assert.False(t, p.CompactResult("s1"), "a pending step's condition reads the whole output")
	assert.Len(t, p.Steps[0].Result.Output, 4000)

	assert.False(t, p.CompactResult("s2"), "a pending step has no result to cut")
	assert.False(t, p.CompactResult("nope"))

	p.Steps[2].Status = StepSkipped
	assert.True(t, p.CompactResult("s1"), "once the reader is done the output may go")
}

func TestDigestIsBounded(t *testing.T) {
	for _, n := range []int{10, 100, 1000} {
		p := doneChain(n, n/2, 4000)
		d := p.Digest()
		assert.Equal(t, "Chain", d.Title)
		assert.Equal(t, Totals{Total: n, Completed: n / 2, Pending: n - n/2}, d.Totals)
		assert.Len(t, d.Steps, min(n, DigestSteps))
		assert.Equal(t, n-len(d.Steps), d.More)
		for _, s := range d.Steps {
			assert.LessOrEqual(t, len(s.Digest), DigestChars)
		}
	}
}

func TestNotDoneListsTheFirstSteps(t *testing.T) {
	p := doneChain(30, 5, 10)
	got, more := p.NotDone()
	require.Len(t, got, RemainingListed)
	assert.Equal(t, "s6", got[0].ID)
	assert.Equal(t, 30-5-RemainingListed, more)

	p = doneChain(8, 5, 10)
	got, more = p.NotDone()
	assert.Len(t, got, 3)
	assert.Zero(t, more)
}
