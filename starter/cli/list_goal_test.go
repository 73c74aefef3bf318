package cli

import (
	"bytes"
	"context"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	commonpb "go.temporal.io/api/common/v1"
	"go.temporal.io/sdk/converter"

	"github.com/planmode/planmode/internal/config"
	"github.com/planmode/planmode/planclient"
	"github.com/planmode/planmode/signals"
)

// withKeyFile returns the dependencies of an invocation configured with
// the key file path, none when it is empty.
func withKeyFile(t *testing.T, path string) *deps {
	t.Helper()
	d, _, _ := newTestDeps(t, "")
	d.cfg.Codec = config.Codec{KeyFile: path}
	return d
}

func TestGoalConditionMatchesTheGoalWithoutAKey(t *testing.T) {
	d := withKeyFile(t, "")
	got, err := goalCondition(d.cfg.Codec, "  Add JWT\n authentication ")
	require.NoError(t, err)
	assert.Equal(t, "PlanGoal = 'Add JWT authentication'", got)
}

func TestGoalConditionSendsOnlyTheDigestWithAKey(t *testing.T) {
	pc := codecKeyFile(t)
	d := withKeyFile(t, os.Getenv(config.EnvName(config.KeyCodecKeyFile)))
	got, err := goalCondition(d.cfg.Codec, "Add JWT\tauthentication")
	require.NoError(t, err)
	assert.Equal(t, "(PlanGoal = '"+pc.Keys().SearchDigest("Add JWT authentication")+"')", got,
		"the digest of the normalised goal")
	for _, word := range []string{"Add", "JWT", "authentication"} {
		assert.NotContains(t, got, word, "the goal never reaches the server")
	}
}

func TestListRefusesAnEmptyGoal(t *testing.T) {
	d, out, errOut := newTestDeps(t, "")
	code := run(context.Background(), d, []string{"list", "--address", nowhere(t), "--goal", " \t"})
	assert.Equal(t, exitRejected, code)
	assert.Contains(t, errOut.String(), "--goal: want the goal's text")
	assert.Empty(t, out.String())
}

func TestQuoteEscapesBackslashesAndQuotes(t *testing.T) {
	assert.Equal(t, `'a\\\'b'`, quote(`a\'b`))
}

func TestListShowsADigestAsEncrypted(t *testing.T) {
	dc := converter.GetDefaultDataConverter()
	digest, err := dc.ToPayload("hmac:0123456789abcdef0123456789abcdef")
	require.NoError(t, err)
	sa := &commonpb.SearchAttributes{IndexedFields: map[string]*commonpb.Payload{signals.GoalAttr.GetName(): digest}}

	s := summarize(dc, "plan-1", "run-1", "Running", sa, nil, time.Time{})
	assert.Empty(t, s.Goal, "a digest is not a goal")
	assert.True(t, s.GoalEncrypted)
	var out bytes.Buffer
	require.NoError(t, renderList(&out, []planSummary{s}))
	assert.Contains(t, out.String(), "(encrypted)")
	assert.NotContains(t, out.String(), "hmac:")

	plain, err := dc.ToPayload("Add JWT authentication")
	require.NoError(t, err)
	sa.IndexedFields[signals.GoalAttr.GetName()] = plain
	s = summarize(dc, "plan-1", "run-1", "Running", sa, nil, time.Time{})
	assert.Equal(t, "Add JWT authentication", s.Goal, "a plaintext goal is shown")
	assert.False(t, s.GoalEncrypted)
	assert.False(t, strings.Contains(s.Goal, "(encrypted)"))
}

func TestShowFromSearchAttributesHidesADigest(t *testing.T) {
	var out bytes.Buffer
	st := planState{WorkflowID: "plan-7", Standing: &planclient.Standing{Status: "Running", Goal: "hmac:0123456789abcdef0123456789abcdef"}}
	require.NoError(t, renderState(&out, st))
	assert.Contains(t, out.String(), "Goal: (encrypted)")
	assert.NotContains(t, out.String(), "hmac:")

	out.Reset()
	st.Standing.Goal = "Add JWT authentication"
	require.NoError(t, renderState(&out, st))
	assert.Contains(t, out.String(), "Goal: Add JWT authentication")
}
