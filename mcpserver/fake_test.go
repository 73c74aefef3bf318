package mcpserver

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"sync"
	"time"

	commonpb "go.temporal.io/api/common/v1"
	enumspb "go.temporal.io/api/enums/v1"
	sdkpb "go.temporal.io/api/sdk/v1"
	"go.temporal.io/api/serviceerror"
	workflowpb "go.temporal.io/api/workflow/v1"
	"go.temporal.io/api/workflowservice/v1"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/converter"
	"google.golang.org/protobuf/types/known/timestamppb"

	"github.com/planmode/planmode/plan"
	"github.com/planmode/planmode/planclient"
	"github.com/planmode/planmode/signals"
)

// fakePlan is a plan the fake knows.
type fakePlan struct {
	tenant  string
	running bool
	phase   plan.Phase
	// details is what the plan answers as its current details; empty:
	// the plan does not answer queries.
	details string
	// awaiting is what the plan's progress says it waits for; empty: a
	// selection.
	awaiting signals.Awaiting
}

// call is one operation the fake was asked: its name, plan and request.
type call struct {
	op  string
	id  string
	req any
}

// fakePlans plays planclient.Client over plans it keeps in memory, and
// records every operation that would change one.
type fakePlans struct {
	mu    sync.Mutex
	plans map[string]*fakePlan
	calls []call
	// refuse, keyed by operation, is the run's refusal of it.
	refuse map[string]string
	// started counts the plans Start started.
	started int
	// endOnSelect ends a plan once an option is selected.
	endOnSelect bool
}

func newFakePlans() *fakePlans {
	return &fakePlans{plans: map[string]*fakePlan{}, refuse: map[string]string{}}
}

// add makes plan id known, open, of tenant.
func (f *fakePlans) add(id, tenant string) *fakePlan {
	f.mu.Lock()
	defer f.mu.Unlock()
	p := &fakePlan{tenant: tenant, running: true, phase: plan.PhaseAwaitingSelection, details: "## Plan " + id + "\n\nWaiting for a selection."}
	f.plans[id] = p
	return p
}

// done ends plan id.
func (f *fakePlans) done(id string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.plans[id].running = false
	f.plans[id].phase = plan.PhaseCompleted
}

// recorded returns the operations asked so far.
func (f *fakePlans) recorded() []call {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]call(nil), f.calls...)
}

// look returns plan id, or Temporal's not found as planclient wraps it.
func (f *fakePlans) look(id, what string) (*fakePlan, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	p, ok := f.plans[id]
	if !ok {
		return nil, fmt.Errorf("plan %s: %s: %w", id, what, serviceerror.NewNotFound("workflow not found for ID: "+id))
	}
	return p, nil
}

// input records the input op of plan id with req, or answers the run's
// refusal as planclient words it.
func (f *fakePlans) input(id, op string, req any) error {
	if _, err := f.look(id, "update "+op); err != nil {
		return err
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if reason, ok := f.refuse[op]; ok {
		return fmt.Errorf("plan %s: update %s: %w: %s", id, op, signals.ErrRejected, reason)
	}
	f.calls = append(f.calls, call{op: op, id: id, req: req})
	return nil
}

// sampleOption is the option the fake's plans offer.
func sampleOption() plan.Option {
	p := plan.Plan{ID: "p1", Title: "Careful", Version: 1, Status: plan.PlanReady,
		Steps: []plan.Step{{ID: "s1", Number: 1, Title: "Write the tests", Action: plan.ActionLLM, Status: plan.StepPending,
			Estimated: plan.Duration(time.Minute)}}}
	return plan.Option{ID: "r1-o1", Title: "Careful", Plan: p, Rank: 1, Score: 0.9, Recommended: true}
}

func (f *fakePlans) Start(_ context.Context, id string, req signals.StartRequest) (client.WorkflowRun, error) {
	if _, err := planclient.CheckStart(req); err != nil {
		return nil, fmt.Errorf("plan %s: %w", id, err)
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	f.started++
	if id == "" {
		id = fmt.Sprintf("plan-%d", f.started)
	}
	f.calls = append(f.calls, call{op: "start", id: id, req: req})
	f.plans[id] = &fakePlan{tenant: req.Tenant, running: true, phase: plan.PhaseClarifying}
	return fakeRun{id: id}, nil
}

func (f *fakePlans) Standing(_ context.Context, id string) (planclient.Standing, error) {
	p, err := f.look(id, "describe")
	if err != nil {
		return planclient.Standing{}, err
	}
	st := planclient.Standing{WorkflowID: id, Status: "Running", TaskQueue: "planmode", Pollers: 1, Phase: p.phase}
	if p.details == "" {
		st.Source, st.Note = planclient.SourceSearchAttributes, "the plan did not answer its query within 3s"
		return st, nil
	}
	if !p.running {
		st.Status = "Completed"
	}
	st.Source = planclient.SourceQuery
	awaiting := p.awaiting
	if awaiting == "" {
		awaiting = signals.AwaitingSelection
	}
	st.Progress = &signals.Progress{Phase: p.phase, Awaiting: awaiting, Percent: 40, Usage: plan.Usage{}}
	return st, nil
}

func (f *fakePlans) Status(_ context.Context, id string) (enumspb.WorkflowExecutionStatus, error) {
	p, err := f.look(id, "describe")
	if err != nil {
		return enumspb.WORKFLOW_EXECUTION_STATUS_UNSPECIFIED, err
	}
	if p.running {
		return enumspb.WORKFLOW_EXECUTION_STATUS_RUNNING, nil
	}
	return enumspb.WORKFLOW_EXECUTION_STATUS_COMPLETED, nil
}

func (f *fakePlans) Options(_ context.Context, id string) (signals.OptionsView, error) {
	if _, err := f.look(id, "query options"); err != nil {
		return signals.OptionsView{}, err
	}
	opts := []plan.Option{sampleOption()}
	return signals.OptionsView{Revision: 1, Options: opts, Comparison: plan.Compare(opts), RecommendedID: "r1-o1"}, nil
}

func (f *fakePlans) Plan(_ context.Context, id string) (signals.PlanView, error) {
	p, err := f.look(id, "query plan")
	if err != nil {
		return signals.PlanView{}, err
	}
	if p.phase == plan.PhaseAwaitingSelection {
		return signals.PlanView{}, nil
	}
	sel := sampleOption().Plan
	return signals.PlanView{Goal: "Add JWT authentication", Plan: &sel}, nil
}

func (f *fakePlans) Pending(_ context.Context, id string) (signals.Pending, error) {
	p, err := f.look(id, "query pending")
	if err != nil {
		return signals.Pending{}, err
	}
	awaiting := signals.AwaitingApproval
	if p.awaiting != "" {
		awaiting = p.awaiting
	}
	return signals.Pending{Awaiting: awaiting, Approvals: []signals.ToolApproval{{RequestID: "ap-1", StepID: "s1",
		Tool: "write_file", Args: json.RawMessage(`{"path":"a.go"}`), ArgsBytes: 14, ArgsDigest: "sha256:ab", PlanVersion: 1,
		Deadline: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC), OnTimeout: signals.ApprovalTimeoutDeny}}}, nil
}

func (f *fakePlans) Select(_ context.Context, id string, req signals.SelectOptionRequest) (signals.SelectOptionResponse, error) {
	if err := f.input(id, signals.SelectOption.Name, req); err != nil {
		return signals.SelectOptionResponse{}, err
	}
	if f.endOnSelect {
		f.done(id)
	}
	return signals.SelectOptionResponse{Option: sampleOption()}, nil
}

func (f *fakePlans) Refine(ctx context.Context, id string, req signals.RefinePlanRequest) (signals.OptionsView, error) {
	if err := f.input(id, signals.RefinePlan.Name, req); err != nil {
		return signals.OptionsView{}, err
	}
	return f.Options(ctx, id)
}

func (f *fakePlans) Answer(_ context.Context, id string, req signals.AnswerClarificationRequest) (signals.ClarificationResponse, error) {
	if err := f.input(id, signals.AnswerClarification.Name, req); err != nil {
		return signals.ClarificationResponse{}, err
	}
	return signals.ClarificationResponse{Accepted: len(req.Answers)}, nil
}

func (f *fakePlans) ConfirmSkip(_ context.Context, id string, req signals.ConfirmSkipRequest) (signals.ConfirmSkipResponse, error) {
	if err := f.input(id, signals.ConfirmSkip.Name, req); err != nil {
		return signals.ConfirmSkipResponse{}, err
	}
	return signals.ConfirmSkipResponse{RequestID: req.RequestID, Approved: req.Approve, StepIDs: []string{"s2"}}, nil
}

func (f *fakePlans) Approve(_ context.Context, id string, req signals.ApproveToolCallRequest) (signals.ApprovalDecision, error) {
	if err := f.input(id, signals.ApproveToolCall.Name, req); err != nil {
		return signals.ApprovalDecision{}, err
	}
	return signals.ApprovalDecision{RequestID: req.RequestID, Decision: signals.DecisionApproved, By: req.By}, nil
}

func (f *fakePlans) Deny(_ context.Context, id string, req signals.DenyToolCallRequest) (signals.ApprovalDecision, error) {
	if err := f.input(id, signals.DenyToolCall.Name, req); err != nil {
		return signals.ApprovalDecision{}, err
	}
	return signals.ApprovalDecision{RequestID: req.RequestID, Decision: signals.DecisionDenied, By: req.By, Reason: req.Reason}, nil
}

func (f *fakePlans) RaiseBudget(_ context.Context, id string, req signals.RaiseBudgetRequest) (signals.RaiseBudgetResponse, error) {
	if err := f.input(id, signals.RaiseBudget.Name, req); err != nil {
		return signals.RaiseBudgetResponse{}, err
	}
	return signals.RaiseBudgetResponse{Budget: signals.Budget{MaxTokens: req.MaxTokens, OnExceed: signals.BudgetPause}, Resumed: true}, nil
}

func (f *fakePlans) Edit(_ context.Context, id string, req signals.EditPlanRequest) (signals.EditPlanResponse, error) {
	if err := f.input(id, signals.EditPlan.Name, req); err != nil {
		return signals.EditPlanResponse{}, err
	}
	return signals.EditPlanResponse{Version: 2, Plan: sampleOption().Plan}, nil
}

func (f *fakePlans) Pause(_ context.Context, id string, req signals.ControlRequest) (signals.ControlState, error) {
	if err := f.input(id, signals.Pause.Name, req); err != nil {
		return signals.ControlState{}, err
	}
	return signals.ControlState{Phase: plan.PhaseExecuting, Paused: true, Reason: req.Reason}, nil
}

func (f *fakePlans) Resume(_ context.Context, id string, req signals.ControlRequest) (signals.ControlState, error) {
	if err := f.input(id, signals.Resume.Name, req); err != nil {
		return signals.ControlState{}, err
	}
	return signals.ControlState{Phase: plan.PhaseExecuting}, nil
}

func (f *fakePlans) Cancel(_ context.Context, id string, req ...signals.ControlRequest) error {
	var r signals.ControlRequest
	if len(req) > 0 {
		r = req[0]
	}
	return f.input(id, "cancel", r)
}

func (f *fakePlans) Result(ctx context.Context, id string) (signals.Result, error) {
	p, err := f.look(id, "result")
	if err != nil {
		return signals.Result{}, err
	}
	if p.running {
		<-ctx.Done()
		return signals.Result{}, fmt.Errorf("plan %s: result: %w", id, ctx.Err())
	}
	sel := sampleOption().Plan
	return signals.Result{Status: signals.StatusCompleted, Summary: "Done.", Plan: &sel, SelectedOptionID: "r1-o1",
		Metrics: plan.Metrics{StepsCompleted: 1}}, nil
}

func (f *fakePlans) RollbackEnded(_ context.Context, id, stepID string, force bool) (signals.RollbackPlanResult, error) {
	req := signals.RollbackPlanRequest{PlanID: id, StepID: stepID, Force: force}
	if err := f.input(id, "rollback-ended", req); err != nil {
		return signals.RollbackPlanResult{}, err
	}
	return signals.RollbackPlanResult{PlanID: id, PlanStatus: "Completed", Restored: []string{"a.go"}, Removed: []string{}}, nil
}

func (f *fakePlans) Approvals(ctx context.Context) (planclient.Inbox, error) {
	f.mu.Lock()
	ids := make([]string, 0, len(f.plans))
	for id := range f.plans {
		ids = append(ids, id)
	}
	f.mu.Unlock()
	sort.Strings(ids)
	var inbox planclient.Inbox
	for _, id := range ids {
		p, _ := f.Pending(ctx, id)
		for _, a := range p.Approvals {
			inbox.Approvals = append(inbox.Approvals, planclient.PlanApproval{WorkflowID: id, ToolApproval: a})
		}
	}
	return inbox, nil
}

func (f *fakePlans) TaskQueue() string { return "planmode" }

func (f *fakePlans) Temporal() client.Client { return fakeTemporal{f: f} }

// fakeRun is a started run.
type fakeRun struct {
	client.WorkflowRun
	id string
}

func (r fakeRun) GetID() string    { return r.id }
func (r fakeRun) GetRunID() string { return "run-" + r.id }

// fakeTemporal is the Temporal client under the fake: what the server
// asks of it directly (describe, list, the details query, the rollback
// update). Anything else panics on the nil interface.
type fakeTemporal struct {
	client.Client
	f *fakePlans
}

func (c fakeTemporal) DescribeWorkflow(_ context.Context, id, _ string) (*client.WorkflowExecutionDescription, error) {
	p, err := c.f.look(id, "describe")
	if err != nil {
		return nil, err
	}
	c.f.mu.Lock()
	defer c.f.mu.Unlock()
	info := &workflowpb.WorkflowExecutionInfo{Execution: &commonpb.WorkflowExecution{WorkflowId: id, RunId: "run-" + id},
		Priority: &commonpb.Priority{FairnessKey: p.tenant}, Status: enumspb.WORKFLOW_EXECUTION_STATUS_RUNNING,
		StartTime: timestamppb.New(time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC))}
	if !p.running {
		info.Status, info.CloseTime = enumspb.WORKFLOW_EXECUTION_STATUS_COMPLETED, timestamppb.New(time.Date(2026, 1, 2, 4, 0, 0, 0, time.UTC))
	}
	return &client.WorkflowExecutionDescription{RawResponse: &workflowservice.DescribeWorkflowExecutionResponse{
		WorkflowExecutionInfo: info}}, nil
}

func (c fakeTemporal) ListWorkflow(_ context.Context, req *workflowservice.ListWorkflowExecutionsRequest) (*workflowservice.ListWorkflowExecutionsResponse, error) {
	c.f.mu.Lock()
	defer c.f.mu.Unlock()
	c.f.calls = append(c.f.calls, call{op: "list", req: req.GetQuery()})
	ids := make([]string, 0, len(c.f.plans))
	for id := range c.f.plans {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	dc := converter.GetDefaultDataConverter()
	resp := &workflowservice.ListWorkflowExecutionsResponse{}
	for _, id := range ids {
		p := c.f.plans[id]
		phase, _ := dc.ToPayload(string(p.phase))
		goal, _ := dc.ToPayload("Goal of " + id)
		resp.Executions = append(resp.Executions, &workflowpb.WorkflowExecutionInfo{
			Execution: &commonpb.WorkflowExecution{WorkflowId: id, RunId: "run-" + id},
			Status:    map[bool]enumspb.WorkflowExecutionStatus{true: enumspb.WORKFLOW_EXECUTION_STATUS_RUNNING, false: enumspb.WORKFLOW_EXECUTION_STATUS_COMPLETED}[p.running],
			StartTime: timestamppb.New(time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)),
			SearchAttributes: &commonpb.SearchAttributes{IndexedFields: map[string]*commonpb.Payload{
				signals.PhaseAttr.GetName(): phase}},
			Memo: &commonpb.Memo{Fields: map[string]*commonpb.Payload{signals.MemoGoal: goal}},
		})
	}
	return resp, nil
}

func (c fakeTemporal) QueryWorkflow(_ context.Context, id, _, queryType string, _ ...any) (converter.EncodedValue, error) {
	p, err := c.f.look(id, "query "+queryType)
	if err != nil {
		return nil, err
	}
	if queryType != workflowMetadataQuery || p.details == "" {
		return nil, fmt.Errorf("plan %s: query %s: %w", id, queryType, context.DeadlineExceeded)
	}
	return encoded{v: &sdkpb.WorkflowMetadata{CurrentDetails: p.details}}, nil
}

func (c fakeTemporal) UpdateWorkflow(_ context.Context, opts client.UpdateWorkflowOptions) (client.WorkflowUpdateHandle, error) {
	if err := c.f.input(opts.WorkflowID, opts.UpdateName, opts.Args[0]); err != nil {
		return nil, err
	}
	return updated{v: signals.RollbackResponse{Restored: []string{"a.go"}, Removed: []string{"b.go"}}}, nil
}

// encoded is a query's answer.
type encoded struct{ v any }

func (e encoded) HasValue() bool { return true }
func (e encoded) Get(ptr any) error {
	p, err := converter.GetDefaultDataConverter().ToPayload(e.v)
	if err != nil {
		return err
	}
	return converter.GetDefaultDataConverter().FromPayload(p, ptr)
}

// updated is an update's outcome.
type updated struct{ v any }

func (u updated) WorkflowID() string { return "" }
func (u updated) RunID() string      { return "" }
func (u updated) UpdateID() string   { return "" }
func (u updated) Get(_ context.Context, ptr any) error {
	b, err := json.Marshal(u.v)
	if err != nil {
		return err
	}
	return json.Unmarshal(b, ptr)
}
