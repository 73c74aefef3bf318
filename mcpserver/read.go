package mcpserver

import (
	"context"
	"fmt"
	"net/url"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	enumspb "go.temporal.io/api/enums/v1"
	sdkpb "go.temporal.io/api/sdk/v1"
	workflowpb "go.temporal.io/api/workflow/v1"
	"go.temporal.io/api/workflowservice/v1"
	"go.temporal.io/sdk/converter"

	"github.com/planmode/planmode/codec"
	"github.com/planmode/planmode/plan"
	"github.com/planmode/planmode/signals"
)

// defaultListPlans is how many plans plan_list answers unless asked.
const defaultListPlans = 20

// list answers the plans on the task queue, newest first: those of the
// caller's tenants when it is limited to some, looking at no more than
// MaxScannedPlans plans to find them.
func (s *server) list(ctx context.Context, in listInput) (listOutput, error) {
	limit := in.Limit
	if limit == 0 {
		limit = defaultListPlans
	}
	scan := limit
	if s.caller.limited() {
		scan = MaxScannedPlans
	}
	out := listOutput{Plans: []planSummary{}}
	query := listQuery(s.plans.TaskQueue(), in.Phase, in.Awaiting)
	var token []byte
	for seen := 0; ; {
		resp, err := s.plans.Temporal().ListWorkflow(ctx, &workflowservice.ListWorkflowExecutionsRequest{
			Query: query, PageSize: int32(min(scan, 100)), NextPageToken: token,
		})
		if err != nil {
			return out, fmt.Errorf("list plans: %w", err)
		}
		for _, e := range resp.GetExecutions() {
			if len(out.Plans) == limit || seen == scan {
				out.More = true
				return out, nil
			}
			seen++
			id := e.GetExecution().GetWorkflowId()
			if s.caller.limited() {
				tenant, err := tenantOf(ctx, s.plans.Temporal(), id)
				if isNotFound(err) || (err == nil && !s.caller.mayUse(tenant)) {
					continue
				}
				if err != nil {
					return out, err
				}
			}
			out.Plans = append(out.Plans, summarize(e))
		}
		if token = resp.GetNextPageToken(); len(token) == 0 {
			return out, nil
		}
	}
}

// listQuery is the visibility query of the plans on queue, by phase and
// awaiting when set.
func listQuery(queue string, phase plan.Phase, awaiting signals.Awaiting) string {
	q := []string{"WorkflowType = " + quote(signals.WorkflowType), "TaskQueue = " + quote(queue)}
	if phase != "" {
		q = append(q, signals.PhaseAttr.GetName()+" = "+quote(string(phase)))
	}
	if awaiting != "" {
		q = append(q, signals.AwaitingAttr.GetName()+" = "+quote(string(awaiting)))
	}
	return strings.Join(q, " AND ")
}

// quote makes s a visibility query string literal.
func quote(s string) string {
	return "'" + strings.NewReplacer(`\`, `\\`, "'", `\'`).Replace(s) + "'"
}

// summarize is a plan of plan_list from what visibility answers: search
// attributes (never encrypted) and the goal of the memo when it is not
// encrypted, else of PlanGoal unless that holds only a digest.
func summarize(e *workflowpb.WorkflowExecutionInfo) planSummary {
	dc := converter.GetDefaultDataConverter()
	p := planSummary{PlanID: e.GetExecution().GetWorkflowId(), Status: e.GetStatus().String(),
		StartedAt: e.GetStartTime().AsTime()}
	fields := e.GetSearchAttributes().GetIndexedFields()
	if v, ok := fields[signals.PhaseAttr.GetName()]; ok {
		_ = dc.FromPayload(v, &p.Phase)
	}
	if v, ok := fields[signals.AwaitingAttr.GetName()]; ok {
		_ = dc.FromPayload(v, &p.Awaiting)
	}
	if v, ok := fields[signals.ProgressAttr.GetName()]; ok {
		_ = dc.FromPayload(v, &p.Progress)
	}
	if v, ok := e.GetMemo().GetFields()[signals.MemoGoal]; ok {
		_ = dc.FromPayload(v, &p.Goal)
	}
	if v, ok := fields[signals.GoalAttr.GetName()]; ok && p.Goal == "" {
		_ = dc.FromPayload(v, &p.Goal)
		if strings.HasPrefix(p.Goal, codec.DigestPrefix) {
			p.Goal, p.GoalEncrypted = "", true
		}
	}
	return p
}

// Resource templates.
const (
	// ResourceDetails is a plan's details as Markdown.
	ResourceDetails = "plan://{id}"
	// ResourceGraph is a plan's steps as a Mermaid flowchart.
	ResourceGraph  = "plan://{id}/graph"
	resourceScheme = "plan://"
	graphSuffix    = "/graph"
)

// addResources registers the resource templates on srv.
func (s *server) addResources(srv *mcp.Server) {
	srv.AddResourceTemplate(&mcp.ResourceTemplate{Name: "plan", Title: "A plan's details", URITemplate: ResourceDetails,
		MIMEType: "text/markdown",
		Description: "Where the plan is, what it waits for with the commands that answer it, its options or steps, and its usage: " +
			"the details the Temporal Web UI shows."}, s.readResource(s.details))
	srv.AddResourceTemplate(&mcp.ResourceTemplate{Name: "plan-graph", Title: "A plan's steps as a graph", URITemplate: ResourceGraph,
		MIMEType:    "text/vnd.mermaid",
		Description: "The selected plan's steps and their dependencies as a Mermaid flowchart, each step's status its class."},
		s.readResource(s.graph))
}

// readResource answers a read of a plan resource with what text renders
// for the plan the URI names, the caller's to see.
func (s *server) readResource(text func(ctx context.Context, id string) (string, error)) mcp.ResourceHandler {
	return func(ctx context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
		uri := req.Params.URI
		id, err := planOfURI(uri)
		if err != nil {
			return nil, mcp.ResourceNotFoundError(uri)
		}
		ctx, cancel := context.WithTimeout(ctx, s.timeout)
		defer cancel()
		t, err := s.visibleText(ctx, id, text)
		if isNotFound(err) {
			return nil, mcp.ResourceNotFoundError(uri)
		}
		if err != nil {
			return nil, s.refusal(ctx, id, err)
		}
		return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: uri, Text: t}}}, nil
	}
}

// visibleText is text of plan id once the caller may see it.
func (s *server) visibleText(ctx context.Context, id string, text func(ctx context.Context, id string) (string, error)) (string, error) {
	if err := s.visible(ctx, id); err != nil {
		return "", err
	}
	return text(ctx, id)
}

// planOfURI is the plan id of a plan://{id} or plan://{id}/graph URI.
func planOfURI(uri string) (string, error) {
	rest, ok := strings.CutPrefix(uri, resourceScheme)
	if !ok {
		return "", fmt.Errorf("%s: not a plan URI", uri)
	}
	rest = strings.TrimSuffix(rest, graphSuffix)
	id, err := url.PathUnescape(rest)
	if err != nil {
		return "", err
	}
	return id, checkPlanID(id)
}

// workflowMetadataQuery is Temporal's built-in query that answers a run's
// current details, which the plan keeps as Markdown (view.Details).
const workflowMetadataQuery = "__temporal_workflow_metadata"

// details is the plan's current details, the Markdown the Web UI shows,
// as the plan answers them; a plan that does not answer within the query
// timeout (not yet picked up, its worker busy or gone) is described from
// what Temporal knows of it.
func (s *server) details(ctx context.Context, id string) (string, error) {
	qctx, cancel := context.WithTimeout(ctx, s.queryTimeout)
	defer cancel()
	v, err := s.plans.Temporal().QueryWorkflow(qctx, id, "", workflowMetadataQuery)
	if err == nil {
		var md sdkpb.WorkflowMetadata
		if err := v.Get(&md); err == nil && md.GetCurrentDetails() != "" {
			return md.GetCurrentDetails(), nil
		}
	}
	if isNotFound(err) {
		return "", err
	}
	st, err := s.plans.Standing(ctx, id)
	if err != nil {
		return "", err
	}
	var b strings.Builder
	fmt.Fprintf(&b, "## Plan %s\n\n", id)
	if st.Goal != "" && !strings.HasPrefix(st.Goal, codec.DigestPrefix) {
		fmt.Fprintf(&b, "**Goal:** %s\n\n", st.Goal)
	}
	fmt.Fprintf(&b, "%s\n", st.Summary())
	return b.String(), nil
}

// graph is the plan's selected plan as a Mermaid flowchart: as the plan
// answers it while open, from its Result once it ended.
func (s *server) graph(ctx context.Context, id string) (string, error) {
	qctx, cancel := context.WithTimeout(ctx, s.queryTimeout)
	defer cancel()
	view, err := s.plans.Plan(qctx, id)
	if err == nil && view.Plan != nil {
		return plan.Mermaid(*view.Plan), nil
	}
	if isNotFound(err) {
		return "", err
	}
	status, serr := s.plans.Status(ctx, id)
	if serr != nil {
		return "", serr
	}
	if status != enumspb.WORKFLOW_EXECUTION_STATUS_RUNNING {
		res, rerr := s.plans.Result(ctx, id)
		if rerr != nil {
			return "", rerr
		}
		if res.Plan != nil {
			return plan.Mermaid(*res.Plan), nil
		}
	}
	if err != nil {
		return "", err
	}
	return "", fmt.Errorf("plan %s has no selected plan yet: its options are in %s", id, ToolOptions)
}
