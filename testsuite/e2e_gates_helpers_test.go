package testsuite

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	enumspb "go.temporal.io/api/enums/v1"
	sdkpb "go.temporal.io/api/sdk/v1"
	"go.temporal.io/sdk/client"
	sdkworker "go.temporal.io/sdk/worker"

	"github.com/planmode/planmode/internal/config"
	"github.com/planmode/planmode/llm"
	"github.com/planmode/planmode/llm/offline"
	"github.com/planmode/planmode/mcp"
	"github.com/planmode/planmode/plan"
	"github.com/planmode/planmode/planclient"
	"github.com/planmode/planmode/signals"
	"github.com/planmode/planmode/webhook"
	"github.com/planmode/planmode/worker/planworker"
)

// gateRig is an in-process worker with the worker's default approval
// settings, a loopback webhook receiver plans may name, and whatever the
// test adds to its configuration (MCP servers), with a client on its
// queue.
type gateRig struct {
	*planWorker
	pc      *planclient.Client
	hooks   *hookReceiver
	hookURL string
	// servers are the worker's MCP servers, nil without any.
	servers *mcp.Manager
}

// startGateRig starts a gateRig; tweak, when set, changes the worker's
// configuration before the activities are built from it.
func startGateRig(t *testing.T, tweak func(*config.Config)) *gateRig {
	t.Helper()
	srv := StartDevServer(t)
	pw := newPlanWorker(t, srv, offline.New())
	t.Cleanup(pw.llm.Close)
	hooks, hookURL := startHookReceiver(t)
	cfg := config.Config{
		Workspace: config.Workspace{Root: pw.root},
		Tools:     config.Tools{AllowCommands: config.DefaultAllowCommands(), AllowTests: true},
		Notify:    config.Notify{AllowedURLs: []string{hookURL}},
		Approval: config.Approval{Timeout: time.Duration(signals.DefaultApprovalTimeout),
			RemindAfter: time.Duration(signals.DefaultApprovalRemindAfter), OnTimeout: string(signals.DefaultApprovalOnTimeout)},
	}
	if tweak != nil {
		tweak(&cfg)
	}
	a := planworker.NewActivities(cfg, llm.Config{BaseURL: pw.llm.URL(), Model: offline.DefaultModel}, true)
	a.Workspace.SnapshotDir = t.TempDir()
	a.MCP = planworker.StartMCP(context.Background(), cfg, slog.New(slog.NewTextHandler(os.Stderr, nil)))
	t.Cleanup(func() { assert.NoError(t, a.MCP.Close()) })
	w := sdkworker.New(srv.Client, pw.queue, sdkworker.Options{})
	planworker.Register(w, a)
	require.NoError(t, w.Start())
	t.Cleanup(w.Stop)
	return &gateRig{planWorker: pw, pc: planclient.New(srv.Client, planclient.WithTaskQueue(pw.queue)),
		hooks: hooks, hookURL: hookURL, servers: a.MCP}
}

// askWriteFile is the start-request rule that makes every write_file
// call ask, whatever the worker's rules say.
var askWriteFile = plan.ApprovalRules{{Match: plan.ToolWriteFile, Action: plan.ApprovalAsk}}

// writeOut is the tool step the gate tests hold: it writes out.txt.
func writeOut(id string) plan.Step {
	return toolStep(id, plan.ToolWriteFile, map[string]any{"path": "out.txt", "content": "x"})
}

// gatedRequest is a plan handed in of steps, with approval as its
// approval policy, on workspace.
func gatedRequest(goal, workspace string, approval signals.ApprovalPolicy, steps ...plan.Step) signals.StartRequest {
	return signals.StartRequest{Goal: goal, Workspace: workspace, Approval: approval,
		Plan: &signals.ExternalPlan{Steps: steps}}
}

// awaitApproval polls plan id's pending query until it lists a gated call
// of step stepID whose plan version is at least minVersion, and returns
// it. It fails at once, saying what the plan did instead, when the plan
// ends first or the wait runs out.
func awaitApproval(ctx context.Context, t *testing.T, pc *planclient.Client, id, stepID string, minVersion int) signals.ToolApproval {
	t.Helper()
	var found signals.ToolApproval
	var last string
	ended := false
	require.Eventually(t, func() bool {
		p, err := pc.Pending(ctx, id)
		if err != nil {
			last = err.Error()
		} else {
			for _, a := range p.Approvals {
				if a.StepID == stepID && a.PlanVersion >= minVersion {
					found = a
					return true
				}
			}
			last = fmt.Sprintf("pending %s", asJSON(p))
		}
		d, err := pc.Temporal().DescribeWorkflow(ctx, id, "")
		ended = err == nil && d.RawResponse.GetWorkflowExecutionInfo().GetStatus() != enumspb.WORKFLOW_EXECUTION_STATUS_RUNNING
		return ended
	}, loadedWait, 20*time.Millisecond, "plan %s never listed an approval for step %s", id, stepID)
	if found.RequestID == "" {
		require.Fail(t, "the plan ended without asking for approval",
			"step %s of plan %s was never gated; last %s; the plan ended as:\n%s", stepID, id, last, endState(ctx, pc, id))
	}
	return found
}

// endState describes how plan id ended: its status, error and each step's
// status, result and note.
func endState(ctx context.Context, pc *planclient.Client, id string) string {
	res, err := pc.Result(ctx, id)
	if err != nil {
		return err.Error()
	}
	var b strings.Builder
	fmt.Fprintf(&b, "status %s %s\n", res.Status, res.Error)
	if res.Plan != nil {
		for _, s := range res.Plan.Steps {
			fmt.Fprintf(&b, "  step %s: %s note %q", s.ID, s.Status, s.Note)
			if s.Result != nil {
				fmt.Fprintf(&b, " output %q error %q", plan.TruncateBytes(s.Result.Output, 120), s.Result.Error)
			}
			b.WriteString("\n")
		}
	}
	return b.String()
}

// assertToolApproval checks a pending entry against the call it gates.
func assertToolApproval(t *testing.T, a signals.ToolApproval, stepID, tool string, params map[string]any) {
	t.Helper()
	args, err := json.Marshal(params)
	require.NoError(t, err)
	assert.NotEmpty(t, a.RequestID)
	assert.Equal(t, stepID, a.StepID)
	assert.Equal(t, tool, a.Tool)
	assert.JSONEq(t, string(args), string(a.Args))
	assert.Equal(t, plan.ArgsDigest(args), a.ArgsDigest)
	assert.Positive(t, a.PlanVersion)
	assert.NotEmpty(t, a.Why, "the entry says why the call was gated")
	assert.False(t, a.Since.IsZero())
	assert.True(t, a.Deadline.After(a.Since), "a deadline after since: %s, %s", a.Since, a.Deadline)
	assert.NotEmpty(t, a.OnTimeout)
}

// approver names the person who approves in these tests: a name no
// result holds unless the decision was recorded.
const approver = "ann.approver@ops"

// approveAsShown approves a pending entry with the digest and version it
// shows.
func approveAsShown(ctx context.Context, pc *planclient.Client, id string, a signals.ToolApproval, by, note string) (signals.ApprovalDecision, error) {
	return pc.Approve(ctx, id, signals.ApproveToolCallRequest{RequestID: a.RequestID, ArgsDigest: a.ArgsDigest,
		PlanVersion: a.PlanVersion, By: by, Note: note})
}

// awaitStepEnd polls plan id until step stepID is done and returns it.
// A denied call's plan goes on as reflection decides (it may replan with
// steps that are gated in turn): the denial is judged on the step alone.
// The plan is cancelled when t ends, so that no test leaves a plan
// waiting on the shared server.
func awaitStepEnd(ctx context.Context, t *testing.T, pc *planclient.Client, id, stepID string) plan.Step {
	t.Helper()
	t.Cleanup(func() { _ = pc.Cancel(context.Background(), id) })
	var step plan.Step
	require.Eventually(t, func() bool {
		v, err := pc.Plan(ctx, id)
		if err != nil || v.Plan == nil {
			return false
		}
		s := v.Plan.StepByID(stepID)
		if s == nil || !s.Status.Done() {
			return false
		}
		step = *s
		return true
	}, loadedWait, 20*time.Millisecond, "step %s of plan %s ends", stepID, id)
	return step
}

// stepOf returns step id of res's plan, failing t when there is none.
func stepOf(t *testing.T, res signals.Result, id string) plan.Step {
	t.Helper()
	require.NotNil(t, res.Plan, "the result has a plan: %s", res.Error)
	s := res.Plan.StepByID(id)
	require.NotNil(t, s, "step %s is in the plan", id)
	return *s
}

// stepText is what a step says of its end: its note, its result's error
// and its output.
func stepText(s plan.Step) string {
	text := s.Note
	if s.Result != nil {
		text += "\n" + s.Result.Error + "\n" + s.Result.Output
	}
	return text
}

// currentDetails returns the current details plan id shows in the Web UI
// (the __temporal_workflow_metadata query the UI reads).
func currentDetails(ctx context.Context, t *testing.T, c client.Client, id string) string {
	t.Helper()
	v, err := c.QueryWorkflow(ctx, id, "", "__temporal_workflow_metadata")
	require.NoError(t, err)
	var meta sdkpb.WorkflowMetadata
	require.NoError(t, v.Get(&meta))
	return meta.GetCurrentDetails()
}

// hookEvents returns the events the receiver got, in order.
func hookEvents(h *hookReceiver) []string {
	var events []string
	for _, r := range h.received() {
		events = append(events, r.header.Get(webhook.HeaderEvent))
	}
	return events
}

// hookApprovals returns the gated calls of the approval-requested events
// the receiver got.
func hookApprovals(t *testing.T, h *hookReceiver) []signals.ToolApproval {
	t.Helper()
	var out []signals.ToolApproval
	for _, b := range hookBodies(t, h) {
		if b.Event == webhook.EventApprovalRequested && b.Data.Approval != nil {
			out = append(out, *b.Data.Approval)
		}
	}
	return out
}

// hookBodies returns the bodies the receiver got, in order.
func hookBodies(t *testing.T, h *hookReceiver) []webhook.Body {
	t.Helper()
	var out []webhook.Body
	for _, r := range h.received() {
		var body webhook.Body
		require.NoError(t, json.Unmarshal(r.body, &body), "webhook body %s", r.body)
		out = append(out, body)
	}
	return out
}

// hookDecisions returns the decisions of the approval-decided events the
// receiver got.
func hookDecisions(t *testing.T, h *hookReceiver) []signals.ApprovalDecision {
	t.Helper()
	var out []signals.ApprovalDecision
	for _, b := range hookBodies(t, h) {
		if b.Event == webhook.EventApprovalDecided && b.Data.Decision != nil {
			out = append(out, *b.Data.Decision)
		}
	}
	return out
}

// assertNotWritten checks that the denied write left no file behind.
func assertNotWritten(t *testing.T, workspace, name string) {
	t.Helper()
	_, err := os.Stat(filepath.Join(workspace, name))
	assert.ErrorIs(t, err, os.ErrNotExist, "the denied call did not run: %s is absent", name)
}

// asJSON is v as JSON, or the error that stopped it, for messages and
// searches.
func asJSON(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return err.Error()
	}
	return string(b)
}
