package signals

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/planmode/planmode/plan"
)

func TestCheckpointValidation(t *testing.T) {
	cases := []struct {
		name string
		cp   *Checkpoint
		want string
	}{
		{"none", nil, ""},
		{"with a plan", &Checkpoint{Runs: 1, Plan: &plan.Plan{ID: "p"}}, ""},
		{"without a plan", &Checkpoint{Runs: 1}, "checkpoint carries no plan"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			err := StartRequest{Goal: "Fix the cart", Checkpoint: tc.cp}.Validate()
			if tc.want == "" {
				assert.NoError(t, err)
				return
			}
			require.Error(t, err)
			assert.Contains(t, err.Error(), tc.want)
		})
	}
}
