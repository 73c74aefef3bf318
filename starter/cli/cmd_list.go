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
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/converter"

	"github.com/spf13/cobra"

	"github.com/planmode/planmode/codec"
	"github.com/planmode/planmode/internal/config"
	"github.com/planmode/planmode/plan"
	"github.com/planmode/planmode/signals"
)

// planSummary is one line of list.
type planSummary struct {
	WorkflowID string `json:"workflowId"`
	RunID      string `json:"runId"`
	Status     string `json:"status"`
	Phase      string `json:"phase,omitempty"`
	Awaiting   string `json:"awaiting,omitempty"`
	Progress   int64  `json:"progress"`
	Goal       string `json:"goal,omitempty"`
	// GoalEncrypted marks a plan whose goal this client cannot read: its
	// memo is encrypted with a key it lacks, or it has none (a plan
	// started by another client), and PlanGoal holds only a digest.
	GoalEncrypted bool      `json:"goalEncrypted,omitempty"`
	StartedAt     time.Time `json:"startedAt"`
}

// awaitingValues are the values the PlanAwaiting search attribute takes.
var awaitingValues = []signals.Awaiting{signals.AwaitingNone, signals.AwaitingWorkspace, signals.AwaitingSelection,
	signals.AwaitingClarification, signals.AwaitingConfirmation, signals.AwaitingApproval, signals.AwaitingResume}

// phaseValues are the values the PlanPhase search attribute takes, in the
// order a run passes through them.
var phaseValues = []plan.Phase{plan.PhaseAwaitingWorkspace, plan.PhaseClarifying, plan.PhasePlanning, plan.PhaseAwaitingSelection,
	plan.PhaseExecuting, plan.PhaseReflecting, plan.PhaseSummarizing, plan.PhaseCompleted, plan.PhaseFailed,
	plan.PhaseCancelled}

func newListCmd(d *deps) *cobra.Command {
	var phase, awaiting, goal string
	var limit int
	cmd := &cobra.Command{
		Use:   "list",
		Short: "List plans, optionally by phase, by what they wait for or by goal",
		Long: `List plans, newest first.

--goal finds plans by their goal (the PlanGoal search attribute). Without
codec.keyFile it matches the words of the goal. With codec.keyFile, PlanGoal
holds only a keyed digest of the goal, so --goal matches the whole goal
(spaces aside) and the query sends the server its digest, never the text.`,
		Example: `  planmode list --awaiting selection
  planmode list --phase executing --limit 10
  planmode list --goal "Add JWT authentication"`,
		Args: rejectArgs(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, _ []string) error {
			if limit < 1 {
				return rejectf(fmt.Sprintf("--limit %d: want 1 or more", limit))
			}
			query := listQuery(phase, awaiting)
			if cmd.Flags().Changed("goal") {
				cond, err := goalCondition(d.cfg.Codec, goal)
				if err != nil {
					return err
				}
				query += " AND " + cond
			}
			c, err := d.temporal(cmd.Context())
			if err != nil {
				return err
			}
			plans, err := listPlans(cmd.Context(), c, d.payloads, d.cfg.Temporal.Namespace, query, limit)
			if err != nil {
				return err
			}
			return d.printer().emit(plans, func(w io.Writer) error { return renderList(w, plans) })
		},
	}
	choiceVar(cmd.Flags(), &phase, "phase", "only plans in this phase", phaseValues...)
	choiceVar(cmd.Flags(), &awaiting, "awaiting", "only plans waiting for this", awaitingValues...)
	cmd.Flags().StringVar(&goal, "goal", "", "only plans with this goal (with codec.keyFile: the whole goal)")
	cmd.Flags().IntVar(&limit, "limit", 50, "most plans to show")
	return cmd
}

// goalCondition is the visibility condition of list --goal. PlanGoal is
// a Text attribute: without a codec key it holds the goal, and the
// condition matches its words. With a key it holds the goal's keyed
// digest (see signals.GoalAttr), and the condition names the digest
// under every key of the file, the older keys' for plans started before
// a rotation; the goal itself never reaches the server. It refuses a goal
// of spaces only, or a codec.keyFile it cannot read.
func goalCondition(keys config.Codec, goal string) (string, error) {
	goal = signals.NormalizeGoal(goal)
	if goal == "" {
		return "", rejectf("--goal: want the goal's text")
	}
	pc, err := keys.PayloadCodec()
	if err != nil {
		return "", err
	}
	name := signals.GoalAttr.GetName()
	if pc == nil {
		return fmt.Sprintf("%s = %s", name, quote(signals.GoalAttrValue(goal))), nil
	}
	var or []string
	for _, d := range pc.Keys().SearchDigests(goal) {
		or = append(or, fmt.Sprintf("%s = %s", name, quote(d)))
	}
	return "(" + strings.Join(or, " OR ") + ")", nil
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
	return "'" + strings.NewReplacer(`\`, `\\`, "'", `\'`).Replace(s) + "'"
}

// listPlans asks visibility in namespace for the plans query matches, at
// most limit of them, newest first; memos decodes their memos.
func listPlans(ctx context.Context, c client.Client, memos converter.DataConverter, namespace, query string,
	limit int) ([]planSummary, error) {
	var plans []planSummary
	var token []byte
	for len(plans) < limit {
		resp, err := c.ListWorkflow(ctx, &workflowservice.ListWorkflowExecutionsRequest{
			Namespace: namespace, Query: query, PageSize: int32(min(limit, 100)), NextPageToken: token,
		})
		if err != nil {
			return nil, fmt.Errorf("list plans: %w", err)
		}
		for _, e := range resp.GetExecutions() {
			plans = append(plans, summarize(memos, e.GetExecution().GetWorkflowId(), e.GetExecution().GetRunId(),
				e.GetStatus().String(), e.GetSearchAttributes(), e.GetMemo(), e.GetStartTime().AsTime()))
		}
		if token = resp.GetNextPageToken(); len(token) == 0 {
			break
		}
	}
	return plans[:min(len(plans), limit)], nil
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
		// sets the goal as a search attribute for every plan, or its
		// digest when payloads are encrypted, which says nothing to a
		// reader.
		_ = dc.FromPayload(p, &s.Goal)
		if strings.HasPrefix(s.Goal, codec.DigestPrefix) {
			s.Goal, s.GoalEncrypted = "", true
		}
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
		goal := clip(p.Goal, titleWidth)
		if p.GoalEncrypted {
			goal = "(encrypted)"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%d%%\t%s\t\n", p.WorkflowID, p.Status, orDash(p.Phase),
			orDash(p.Awaiting), p.Progress, goal)
	}
	if err := tw.Flush(); err != nil {
		return fmt.Errorf("write list: %w", err)
	}
	return nil
}
