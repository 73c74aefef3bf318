package testsuite

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/temporal"

	"github.com/planmode/planmode/internal/devserver"
	"github.com/planmode/planmode/plan"
	"github.com/planmode/planmode/signals"
)

// temporalCLITimeout bounds one Temporal CLI command; `workflow result`
// waits for the run's end within it.
const temporalCLITimeout = time.Minute

// temporalCLI runs the Temporal CLI against srv with JSON output and
// returns what it printed. The error carries the CLI's stderr. It never
// fails t, so conditions polled in another goroutine may call it.
func temporalCLI(t *testing.T, srv *devserver.DevServer, args ...string) (string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), temporalCLITimeout)
	defer cancel()
	bin, err := devserver.FindTemporal(ctx)
	if err != nil {
		return "", err
	}
	args = append(args, "--address", srv.Address(), "--namespace", srv.Namespace, "--output", "json", "--color", "never")
	var stdout, stderr bytes.Buffer
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		return stdout.String(), fmt.Errorf("temporal %s: %w: %s", strings.Join(args[:2], " "), err, strings.TrimSpace(stderr.String()))
	}
	return stdout.String(), nil
}

// temporalJSON runs the Temporal CLI, requires success and decodes its
// output into v.
func temporalJSON(t *testing.T, srv *devserver.DevServer, v any, args ...string) {
	t.Helper()
	out, err := temporalCLI(t, srv, args...)
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal([]byte(out), v), out)
}

// mustJSON marshals v for a --input flag.
func mustJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	require.NoError(t, err)
	return string(b)
}

// cliQuery runs query q of run id through the Temporal CLI, requires an
// answer and decodes it.
func cliQuery[Resp any](t *testing.T, srv *devserver.DevServer, id string, q signals.Query[Resp]) Resp {
	t.Helper()
	out, err := tryCLIQuery(t, srv, id, q)
	require.NoError(t, err)
	return out
}

// tryCLIQuery is cliQuery for a condition polled until it holds: it
// returns the error instead of failing t.
func tryCLIQuery[Resp any](t *testing.T, srv *devserver.DevServer, id string, q signals.Query[Resp]) (Resp, error) {
	var zero Resp
	out, err := temporalCLI(t, srv, "workflow", "query", "--workflow-id", id, "--name", q.Name)
	if err != nil {
		return zero, err
	}
	var answer struct {
		QueryResult []Resp `json:"queryResult"`
	}
	if err := json.Unmarshal([]byte(out), &answer); err != nil {
		return zero, fmt.Errorf("query %s: %w: %s", q.Name, err, out)
	}
	if len(answer.QueryResult) != 1 {
		return zero, fmt.Errorf("query %s: want one answer: %s", q.Name, out)
	}
	return answer.QueryResult[0], nil
}

// cliSignal sends payload (raw JSON) as signal name to run id through the
// Temporal CLI.
func cliSignal(t *testing.T, srv *devserver.DevServer, id, name, payload string) {
	t.Helper()
	_, err := temporalCLI(t, srv, "workflow", "signal", "--workflow-id", id, "--name", name, "--input", payload)
	require.NoError(t, err)
}

// describedRun is the part of `temporal workflow describe` the tests read.
type describedRun struct {
	WorkflowExecutionInfo struct {
		Status           string `json:"status"`
		SearchAttributes struct {
			IndexedFields map[string]struct {
				Data []byte `json:"data"`
			} `json:"indexedFields"`
		} `json:"searchAttributes"`
	} `json:"workflowExecutionInfo"`
}

// attr decodes the search attribute name into v.
func (d describedRun) attr(t *testing.T, name string, v any) {
	t.Helper()
	f, ok := d.WorkflowExecutionInfo.SearchAttributes.IndexedFields[name]
	require.True(t, ok, "search attribute %s is set", name)
	require.NoError(t, json.Unmarshal(f.Data, v))
}

// TestTemporalCLIDrivesAPlanByContractNames drives a plan with nothing but
// the Temporal CLI and the contract's names: start with a StartRequest as
// JSON, the options query, pause and resume signals, a malformed signal,
// the select-option update, and the result and description of the run.
func TestTemporalCLIDrivesAPlanByContractNames(t *testing.T) {
	t.Parallel()
	pw := startPlanWorker(t)
	srv, id := pw.srv, "plan-tcli-"+pw.queue
	req := signals.StartRequest{Goal: "Add a percentage discount to the cart total", Workspace: pw.workspace}

	var started struct {
		WorkflowID string `json:"workflowId"`
		RunID      string `json:"runId"`
		Type       string `json:"type"`
	}
	temporalJSON(t, srv, &started, "workflow", "start", "--type", signals.WorkflowType, "--task-queue", pw.queue,
		"--workflow-id", id, "--input", mustJSON(t, req))
	require.Equal(t, id, started.WorkflowID)
	require.Equal(t, signals.WorkflowType, started.Type)
	require.NotEmpty(t, started.RunID)

	var options signals.OptionsView
	require.Eventually(t, func() bool {
		var err error
		options, err = tryCLIQuery(t, srv, id, signals.OptionsQuery)
		return err == nil && len(options.Options) > 0
	}, loadedWait, 50*time.Millisecond, "the options query answers the generated options")
	assert.Equal(t, 1, options.Revision)
	require.NotEmpty(t, options.RecommendedID)

	pauseResumeByCLI(t, srv, id)

	refuseByCLI(t, srv, id)

	var selected struct {
		Name   string                       `json:"name"`
		Result signals.SelectOptionResponse `json:"result"`
	}
	temporalJSON(t, srv, &selected, "workflow", "update", "execute", "--workflow-id", id,
		"--name", signals.SelectOption.Name, "--input", mustJSON(t, signals.SelectOptionRequest{Rank: 1}))
	assert.Equal(t, signals.SelectOption.Name, selected.Name)
	assert.Equal(t, options.RecommendedID, selected.Result.Option.ID, "rank 1 is the recommended option")

	var result struct {
		Status string         `json:"status"`
		Result signals.Result `json:"result"`
	}
	temporalJSON(t, srv, &result, "workflow", "result", "--workflow-id", id)
	assert.Equal(t, "COMPLETED", result.Status)
	assertCompleted(t, result.Result, options.RecommendedID)

	var desc describedRun
	temporalJSON(t, srv, &desc, "workflow", "describe", "--workflow-id", id)
	assert.Equal(t, "WORKFLOW_EXECUTION_STATUS_COMPLETED", desc.WorkflowExecutionInfo.Status)
	var phase string
	var percent int
	desc.attr(t, signals.PhaseAttr.GetName(), &phase)
	desc.attr(t, signals.ProgressAttr.GetName(), &percent)
	assert.Equal(t, string(plan.PhaseCompleted), phase)
	assert.Equal(t, 100, percent)
}

// pauseResumeByCLI pauses and resumes run id with fire-and-forget signals
// and waits for the pending query to show each.
func pauseResumeByCLI(t *testing.T, srv *devserver.DevServer, id string) {
	t.Helper()
	cliSignal(t, srv, id, signals.Pause.Name, mustJSON(t, signals.ControlRequest{Reason: "look first"}))
	require.Eventually(t, func() bool {
		p, err := tryCLIQuery(t, srv, id, signals.PendingQuery)
		return err == nil && p.Paused
	}, loadedWait, 50*time.Millisecond, "the pause signal pauses the run")
	progress := cliQuery(t, srv, id, signals.ProgressQuery)
	assert.Equal(t, plan.ModePaused, progress.Mode)
	assert.Equal(t, plan.PhaseAwaitingSelection, progress.Phase, "a pause does not move the run on")

	cliSignal(t, srv, id, signals.Resume.Name, mustJSON(t, signals.ControlRequest{}))
	require.Eventually(t, func() bool {
		p, err := tryCLIQuery(t, srv, id, signals.PendingQuery)
		return err == nil && !p.Paused
	}, loadedWait, 50*time.Millisecond, "the resume signal resumes the run")
	pending := cliQuery(t, srv, id, signals.PendingQuery)
	assert.Empty(t, pending.Rejected, "pause and resume were accepted")
	assert.Equal(t, signals.AwaitingSelection, pending.Awaiting)
}

// assertCompleted checks that res is a completed run of option optionID
// with every step completed.
func assertCompleted(t *testing.T, res signals.Result, optionID string) {
	t.Helper()
	assert.Equal(t, signals.StatusCompleted, res.Status, res.Error)
	assert.Equal(t, optionID, res.SelectedOptionID)
	require.NotNil(t, res.Plan)
	require.NotEmpty(t, res.Plan.Steps)
	for _, s := range res.Plan.Steps {
		assert.Equal(t, plan.StepCompleted, s.Status, "step %s %s", s.ID, s.Title)
	}
	assert.Equal(t, len(res.Plan.Steps), res.Metrics.StepsCompleted)
	assert.NotEmpty(t, res.Summary)
}

// refuseByCLI sends run id a malformed select-option signal and an
// out-of-range select-option update through the Temporal CLI: the signal
// is listed as rejected, the update fails, and the run still waits for its
// selection.
func refuseByCLI(t *testing.T, srv *devserver.DevServer, id string) {
	t.Helper()
	cliSignal(t, srv, id, signals.SelectOption.Name, `{"optionId": 5}`)
	require.Eventually(t, func() bool {
		p, err := tryCLIQuery(t, srv, id, signals.PendingQuery)
		return err == nil && len(p.Rejected) == 1
	}, loadedWait, 50*time.Millisecond, "a malformed signal is listed as rejected")
	pending := cliQuery(t, srv, id, signals.PendingQuery)
	assert.Equal(t, signals.SelectOption.Name, pending.Rejected[0].Name)
	assert.Contains(t, pending.Rejected[0].Reason, "optionId")
	assert.Equal(t, signals.AwaitingSelection, pending.Awaiting, "the malformed signal selected nothing")

	_, err := temporalCLI(t, srv, "workflow", "update", "execute", "--workflow-id", id,
		"--name", signals.SelectOption.Name, "--input", mustJSON(t, signals.SelectOptionRequest{Rank: 99}))
	require.Error(t, err, "rank 99 is refused")
	assert.Contains(t, err.Error(), "rejected: no option has rank 99")
}

// TestTemporalCLIStartWithAnUnknownFieldIsRefused starts a plan from the
// Temporal CLI with a misspelt field: the run fails at once as an invalid
// request naming the field, instead of running without it (here, in the
// default folder rather than the workspace meant). The same request spelt
// right runs.
func TestTemporalCLIStartWithAnUnknownFieldIsRefused(t *testing.T) {
	t.Parallel()
	pw := startPlanWorker(t)
	srv, id := pw.srv, "plan-typo-"+pw.queue
	_, err := temporalCLI(t, srv, "workflow", "start", "--type", signals.WorkflowType, "--task-queue", pw.queue,
		"--workflow-id", id, "--input", `{"goal":"Add a percentage discount to the cart total","worksapce":"workspace"}`)
	require.NoError(t, err)

	ctx, cancel := testContext(t)
	defer cancel()
	err = srv.Client.GetWorkflow(ctx, id, "").Get(ctx, nil)
	var app *temporal.ApplicationError
	require.ErrorAs(t, err, &app)
	assert.Equal(t, signals.ErrorTypeInvalidRequest, app.Type())
	assert.True(t, app.NonRetryable())
	assert.Contains(t, app.Message(), `unknown field "worksapce"`)

	ok := "plan-spelt-" + pw.queue
	_, err = temporalCLI(t, srv, "workflow", "start", "--type", signals.WorkflowType, "--task-queue", pw.queue,
		"--workflow-id", ok, "--input", `{"goal":"Add a percentage discount to the cart total","workspace":"workspace"}`)
	require.NoError(t, err)
	require.Eventually(t, func() bool {
		p, err := tryCLIQuery(t, srv, ok, signals.PendingQuery)
		return err == nil && p.Awaiting == signals.AwaitingSelection
	}, loadedWait, 50*time.Millisecond, "the request spelt right runs to its selection")
	require.NoError(t, srv.Client.TerminateWorkflow(ctx, ok, "", "test over"))
}
