package offline

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/planmode/planmode/llm"
	"github.com/planmode/planmode/llm/reply"
)

// TestRepliesPassTheChecks decodes the brain's replies strictly into the
// reply types, checks nothing is lost, and runs the checks the activities
// run, which must accept them as they are.
func TestRepliesPassTheChecks(t *testing.T) {
	b := NewOfflineBrain()
	var clarify, question reply.Clarify
	var options reply.Options
	var reflection reply.Reflect
	cases := []struct {
		phase string
		reply Reply
		into  any
		check func() error
	}{
		{llm.PhaseClarify, b.Reply(llm.PhaseClarify, clarifyRequest("fix it", true, nil, demoFiles)), &clarify, clarify.Check},
		{llm.PhaseClarify, b.Reply(llm.PhaseClarify, clarifyRequest("who wrote cart.go?", false, nil, demoFiles)), &question,
			question.Check},
		{llm.PhasePlan, b.Reply(llm.PhasePlan, planReq(planFixture{goal: "Refactor the cart", count: 5, files: demoFiles,
			tools: allTools})), &options, func() error { return options.Check(0) }},
		{llm.PhaseReflect, b.Reply(llm.PhaseReflect, reflectRequest("s1", false, "boom", "s2 Next")), &reflection, reflection.Check},
	}
	for _, c := range cases {
		dec := json.NewDecoder(bytes.NewReader([]byte(c.reply.Content)))
		dec.DisallowUnknownFields()
		require.NoError(t, dec.Decode(c.into), c.phase)
		again, err := json.Marshal(c.into)
		require.NoError(t, err)
		assert.JSONEq(t, c.reply.Content, string(again), c.phase)
		assert.NoError(t, c.check(), c.phase)
	}
	assert.NotEmpty(t, options.Options)
}
