package signals_test

import (
	"bytes"
	"encoding/json"
	"os"
	"regexp"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/planmode/planmode/signals"
)

// TestReadmeStartRequestIsValid keeps the README's example request in step
// with the contract: it must decode strictly and validate.
func TestReadmeStartRequestIsValid(t *testing.T) {
	doc, err := os.ReadFile("../README.md")
	require.NoError(t, err)
	m := regexp.MustCompile("(?s)A `StartRequest`.*?```json\n(.*?)```").FindSubmatch(doc)
	require.NotNil(t, m, "the README shows a StartRequest in a json block")
	dec := json.NewDecoder(bytes.NewReader(m[1]))
	dec.DisallowUnknownFields()
	var req signals.StartRequest
	require.NoError(t, dec.Decode(&req))
	require.NoError(t, req.Validate())
	require.NotEmpty(t, req.Goal)
	require.NotEmpty(t, req.Ranking)
}
