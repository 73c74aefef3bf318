package cli

import (
	"context"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"time"

	commonpb "go.temporal.io/api/common/v1"
	"go.temporal.io/api/workflowservice/v1"
	"go.temporal.io/sdk/converter"

	"github.com/spf13/cobra"

	"github.com/planmode/planmode/plan"
	"github.com/planmode/planmode/signals"
)

// planSummary is one line of list.
type planSummary struct {
	WorkflowID string    `json:"workflowId"`
	RunID      string    `json:"runId"`
	Status     string    `json:"status"`
	Phase      string    `json:"phase,omitempty"`
	Awaiting   string    `json:"awaiting,omitempty"`
	Progress   int64     `json:"progress"`
	Goal       string    `json:"goal,omitempty"`
	StartedAt  time.Time `json:"startedAt"`
}

// awaitingValues are the values the PlanAwaiting search attribute takes.
var awaitingValues = []signals.Awaiting{signals.AwaitingNone, signals.AwaitingWorkspace, signals.AwaitingSelection,
	signals.AwaitingClarification, signals.AwaitingConfirmation, signals.AwaitingResume}

// phaseValues are the values the PlanPhase search attribute takes, in the
// order a run passes through them.
var phaseValues = []plan.Phase{plan.PhaseAwaitingWorkspace, plan.PhaseClarifying, plan.PhasePlanning, plan.PhaseAwaitingSelection,
	plan.PhaseExecuting, plan.PhaseReflecting, plan.PhaseSummarizing, plan.PhaseCompleted, plan.PhaseFailed,
	plan.PhaseCancelled}

func (a *app) listCmd() *cobra.Command {
	var phase, awaiting string
	var limit int
	cmd := &cobra.Command{
		Use:   "list",
		Short: "List plans, optionally by phase or by what they wait for",
		Example: `  planmode list --awaiting selection
  planmode list --phase executing --limit 10`,
		Args: rejectArgs(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, _ []string) error {
			if limit < 1 {
				return rejectf(fmt.Sprintf("--limit %d: want 1 or more", limit))
			}
			return a.list(cmd.Context(), listQuery(phase, awaiting), limit)
		},
	}
	choiceVar(cmd.Flags(), &phase, "phase", "only plans in this phase", phaseValues...)
	choiceVar(cmd.Flags(), &awaiting, "awaiting", "only plans waiting for this", awaitingValues...)
	cmd.Flags().IntVar(&limit, "limit", 50, "most plans to show")
	return cmd
}

// listQuery is the visibility query of list.
func listQuery(phase, awaiting string) string {
	q := []string{fmt.Sprintf("WorkflowType = %s", quote(signals.WorkflowType))}
	if phase != "" {
		q = append(q, fmt.Sprintf("%s = %s", signals.PhaseAttr.GetName(), quote(phase)))
	}
	if awaiting != "" {
		q = append(q, fmt.Sprintf("%s = %s", signals.AwaitingAttr.GetName(), quote(awaiting)))
	}
	return strings.Join(q, " AND ")
}

// quote makes s a visibility query string literal.
func quote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `\'`) + "'"
}

func (a *app) list(ctx context.Context, query string, limit int) error {
	c, err := a.temporal(ctx)
	if err != nil {
		return err
	}
	var plans []planSummary
	var token []byte
	for len(plans) < limit {
		resp, err := c.ListWorkflow(ctx, &workflowservice.ListWorkflowExecutionsRequest{
			Namespace: a.cfg.Temporal.Namespace, Query: query, PageSize: int32(min(limit, 100)), NextPageToken: token,
		})
		if err != nil {
			return fmt.Errorf("list plans: %w", err)
		}
		for _, e := range resp.GetExecutions() {
			plans = append(plans, summarize(a.payloads, e.GetExecution().GetWorkflowId(), e.GetExecution().GetRunId(),
				e.GetStatus().String(), e.GetSearchAttributes(), e.GetMemo(), e.GetStartTime().AsTime()))
		}
		if token = resp.GetNextPageToken(); len(token) == 0 {
			break
		}
	}
	plans = plans[:min(len(plans), limit)]
	return a.emit(plans, func(w io.Writer) error { return renderList(w, plans) })
}

// summarize builds a list line from what visibility returns. The memo is
// decoded with memos, the client's converter (it is encrypted when
// payloads are); search attributes never are.
func summarize(memos converter.DataConverter, id, runID, status string, sa *commonpb.SearchAttributes, memo *commonpb.Memo, started time.Time) planSummary {
	dc := converter.GetDefaultDataConverter()
	s := planSummary{WorkflowID: id, RunID: runID, Status: status, StartedAt: started}
	fields := sa.GetIndexedFields()
	if p, ok := fields[signals.PhaseAttr.GetName()]; ok {
		_ = dc.FromPayload(p, &s.Phase)
	}
	if p, ok := fields[signals.AwaitingAttr.GetName()]; ok {
		_ = dc.FromPayload(p, &s.Awaiting)
	}
	if p, ok := fields[signals.ProgressAttr.GetName()]; ok {
		_ = dc.FromPayload(p, &s.Progress)
	}
	if p, ok := memo.GetFields()[signals.MemoGoal]; ok {
		_ = memos.FromPayload(p, &s.Goal)
	}
	if p, ok := fields[signals.GoalAttr.GetName()]; ok && s.Goal == "" {
		// A plan started by another client has no memo; the workflow
		// sets the goal as a search attribute for every plan.
		_ = dc.FromPayload(p, &s.Goal)
	}
	return s
}

func renderList(w io.Writer, plans []planSummary) error {
	if len(plans) == 0 {
		_, err := fmt.Fprintln(w, "No plans.")
		return err
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tSTATUS\tPHASE\tAWAITING\tPROGRESS\tGOAL\t")
	for _, p := range plans {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%d%%\t%s\t\n", p.WorkflowID, p.Status, orDash(p.Phase),
			orDash(p.Awaiting), p.Progress, clip(p.Goal, titleWidth))
	}
	if err := tw.Flush(); err != nil {
		return fmt.Errorf("write list: %w", err)
	}
	return nil
}
