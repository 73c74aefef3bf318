package signals

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/converter"
	"go.temporal.io/sdk/temporal"
)

func TestStartRequestRemembersUnknownFields(t *testing.T) {
	cases := []struct {
		name, json, want string
	}{
		{"top level", `{"goal":"g","workspaces":"a"}`, `unknown field "workspaces"`},
		{"nested", `{"goal":"g","selection":{"mode":"auto","time_out":"1h"}}`, `unknown field "time_out"`},
		{"in a plan handed in", `{"goal":"g","plan":{"title":"t","steps":[{"title":"s","bogus":1}]}}`, `unknown field "bogus"`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var r StartRequest
			require.NoError(t, json.Unmarshal([]byte(tc.json), &r), "decoding stays lenient")
			assert.Equal(t, "g", r.Goal)
			err := r.UnknownFields()
			require.Error(t, err)
			assert.Contains(t, err.Error(), tc.want)
		})
	}
	var ok StartRequest
	require.NoError(t, json.Unmarshal([]byte(`{"goal":"g","workspace":"a","onBusy":"wait","selection":{"mode":"auto"}}`), &ok))
	assert.NoError(t, ok.UnknownFields())
	assert.Equal(t, OnBusyWait, ok.OnBusy)
	assert.NoError(t, StartRequest{Goal: "g"}.UnknownFields(), "a request built in Go has none")
}

func TestStartRequestUnknownFieldsThroughTheDataConverter(t *testing.T) {
	// What `temporal workflow start --input` sends reaches the workflow
	// through the SDK's converter.
	dc := converter.GetDefaultDataConverter()
	p, err := dc.ToPayload(json.RawMessage(`{"goal":"g","worksapce":"a"}`))
	require.NoError(t, err)
	var r StartRequest
	require.NoError(t, dc.FromPayload(p, &r))
	require.ErrorContains(t, r.UnknownFields(), `unknown field "worksapce"`)

	// A typed request round-trips clean.
	p, err = dc.ToPayload(StartRequest{Goal: "g", Workspace: "a"})
	require.NoError(t, err)
	var typed StartRequest
	require.NoError(t, dc.FromPayload(p, &typed))
	assert.NoError(t, typed.UnknownFields())
}

func TestContinuationRequestIsNotChecked(t *testing.T) {
	// A continuation's request is the run's own, written by an older
	// version perhaps: a field since removed must not fail it.
	var r StartRequest
	require.NoError(t, json.Unmarshal([]byte(`{"goal":"g","checkpoint":{"runs":1,"gone":true}}`), &r))
	assert.NoError(t, r.UnknownFields())
}

func TestOnBusyIsValidated(t *testing.T) {
	assert.NoError(t, StartRequest{Goal: "g", OnBusy: OnBusyWait}.Validate())
	assert.NoError(t, StartRequest{Goal: "g", OnBusy: OnBusyRefuse}.Validate())
	assert.ErrorContains(t, StartRequest{Goal: "g", OnBusy: "queue"}.Validate(), `onBusy "queue": want refuse or wait`)
	assert.Equal(t, OnBusyRefuse, StartRequest{Goal: "g"}.WithDefaults().OnBusy)
}

func TestWorkspaceLeaseRequestValidate(t *testing.T) {
	ok := WorkspaceLeaseRequest{Key: "a", PlanID: "p", RunID: "r"}
	require.NoError(t, ok.Validate())
	for _, tc := range []struct {
		name string
		edit func(*WorkspaceLeaseRequest)
		want string
	}{
		{"root", func(r *WorkspaceLeaseRequest) { r.Key = "." }, "whole workspace root"},
		{"empty key", func(r *WorkspaceLeaseRequest) { r.Key = "" }, "empty"},
		{"outside", func(r *WorkspaceLeaseRequest) { r.Key = "../b" }, "leaves the workspace root"},
		{"no plan", func(r *WorkspaceLeaseRequest) { r.PlanID = "" }, "planId is required"},
		{"no run", func(r *WorkspaceLeaseRequest) { r.RunID = "" }, "runId is required"},
		{"long plan", func(r *WorkspaceLeaseRequest) { r.PlanID = strings.Repeat("p", MaxWorkflowIDBytes+1) }, "at most 1000"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := ok
			tc.edit(&r)
			assert.ErrorContains(t, r.Validate(), tc.want)
		})
	}
}

func TestWorkspaceBusyNamesAndCarriesTheHolder(t *testing.T) {
	since := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	holder := WorkspaceLease{Key: "a", PlanID: "plan-A", RunID: "run-1", Since: since}
	for _, tc := range []struct{ key, want string }{
		{"a", `workspace "a" is held by plan plan-A (run run-1) since 2026-01-02T03:04:05Z`},
		{"a/sub", `workspace "a/sub" lies inside workspace "a", held by plan plan-A`},
	} {
		err := WorkspaceBusy(WorkspaceLeaseRequest{Key: tc.key, PlanID: "plan-B", RunID: "r"}, holder)
		assert.Contains(t, err.Error(), tc.want)
		got, ok := BusyHolder(err)
		require.True(t, ok)
		assert.Equal(t, holder, got)
		var app *temporal.ApplicationError
		require.ErrorAs(t, err, &app)
		assert.True(t, app.NonRetryable())
	}
	inner := WorkspaceLease{Key: "a/sub", PlanID: "plan-A", RunID: "r"}
	assert.Contains(t, BusyMessage("a", inner), `workspace "a" holds workspace "a/sub", held by plan plan-A`)
	_, ok := BusyHolder(errors.New("other"))
	assert.False(t, ok)
}

func TestLeaseWorkflowIDIsOnePerKeyAndBounded(t *testing.T) {
	assert.Equal(t, "planmode-lease/q/team/shop", LeaseWorkflowID("q", "team/shop"))
	assert.Equal(t, "planmode-lease/q//srv/repo", LeaseWorkflowID("q", "/srv/repo"), "an absolute key on a worker without a root")
	assert.NotEqual(t, LeaseWorkflowID("q", "a"), LeaseWorkflowID("r", "a"), "one per task queue")

	long := strings.Repeat("d/", 600) + "x"
	other := strings.Repeat("d/", 600) + "y"
	id := LeaseWorkflowID("q", long)
	assert.LessOrEqual(t, len(id), MaxWorkflowIDBytes)
	assert.True(t, strings.HasPrefix(id, "planmode-lease/q/sha256-"), id)
	assert.NotEqual(t, id, LeaseWorkflowID("q", other), "two long keys, two ids")
	assert.Equal(t, id, LeaseWorkflowID("q", long), "the same key, the same id")
	fits := strings.Repeat("k", MaxWorkflowIDBytes-len("planmode-lease/q/"))
	assert.Equal(t, "planmode-lease/q/"+fits, LeaseWorkflowID("q", fits), "a key that fits is kept as it is")
}
