package planclient

import (
	"errors"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/planmode/planmode/signals"
)

// TestCheckStartIsTheClientsOneCheck: a request the workflow would refuse
// is refused before anything dials, marked rejected; a valid one comes
// back unchanged for StartChecked.
func TestCheckStartIsTheClientsOneCheck(t *testing.T) {
	_, err := CheckStart(signals.StartRequest{Goal: strings.Repeat("g", signals.MaxTextBytes*40)})
	require.Error(t, err)
	assert.True(t, errors.Is(err, signals.ErrRejected), err)
	assert.Contains(t, err.Error(), "goal is")

	req := signals.StartRequest{Goal: "Fix the cart", Requirements: []string{"keep the API"}}
	checked, err := CheckStart(req)
	require.NoError(t, err)
	assert.Equal(t, req, checked.Request())
}
