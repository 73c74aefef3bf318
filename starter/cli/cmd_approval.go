package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/planmode/planmode/planclient"
	"github.com/planmode/planmode/signals"
)

func newApprovalsCmd(d *deps) *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "approvals",
		Short: "List every gated tool call waiting for approval, across plans",
		Long: `List every gated tool call waiting for approval: the plans visibility shows
with PlanAwaiting = approval, then each plan's pending query. A plan that does
not answer is reported, not fatal. Approve with "planmode approve", deny with
"planmode deny".`,
		Example: `  planmode approvals
  planmode approvals --json`,
		Args: rejectArgs(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, _ []string) error {
			p := d.printer()
			if asJSON {
				p.json = true
			}
			pc, err := d.plans(cmd.Context())
			if err != nil {
				return err
			}
			inbox, err := pc.Approvals(cmd.Context())
			if err != nil {
				return err
			}
			return p.emit(inbox, func(w io.Writer) error { return renderInbox(w, inbox) })
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON (as --output json)")
	return cmd
}

// renderInbox writes the inbox as a table, then the plans that did not
// answer.
func renderInbox(w io.Writer, inbox planclient.Inbox) error {
	if len(inbox.Approvals) == 0 {
		fmt.Fprintln(w, "No approvals pending.")
	} else {
		tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
		fmt.Fprintln(tw, "PLAN\tREQUEST\tSTEP\tTOOL\tWHY\tSINCE\tDEADLINE\t")
		for _, p := range inbox.Approvals {
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s (%s)\t\n", p.WorkflowID, p.RequestID, p.StepID, p.Tool,
				clip(p.Why, titleWidth), p.Since.Format(time.RFC3339), p.Deadline.Format(time.RFC3339), p.OnTimeout)
		}
		if err := tw.Flush(); err != nil {
			return err
		}
	}
	for _, u := range inbox.Unanswered {
		fmt.Fprintf(w, "plan %s did not answer: %s\n", u.WorkflowID, u.Error)
	}
	if inbox.Truncated {
		fmt.Fprintf(w, "only the first %d plans were asked\n", planclient.MaxInboxPlans)
	}
	return nil
}

func newApproveCmd(d *deps) *cobra.Command {
	var argsFile, reason string
	cmd := &cobra.Command{
		Use:   "approve <id> <request-id> [--args FILE] [--reason TEXT]",
		Short: "Approve a gated tool call, as the pending query shows it",
		Long: `Approve a gated tool call. The command reads the plan's pending request first
and sends its argument digest and plan version: you approve what you saw, and
a plan edited since refuses the approval as StaleApproval. --args replaces the
call's arguments with a JSON object (or YAML) from FILE; the decision records
that they were edited.`,
		Example: `  planmode approve plan-42 approval-3 --reason "checked the diff"
  planmode approve plan-42 approval-3 --args args.json`,
		Args: rejectArgs(cobra.ExactArgs(2)),
		RunE: func(cmd *cobra.Command, args []string) error {
			req := signals.ApproveToolCallRequest{RequestID: args[1], Note: reason}
			if argsFile != "" {
				edited, err := readArgs(argsFile)
				if err != nil {
					return err
				}
				req.Args = edited
			}
			pc, err := d.plans(cmd.Context())
			if err != nil {
				return err
			}
			open, err := openApproval(cmd.Context(), pc, args[0], args[1])
			if err != nil {
				return err
			}
			req.ArgsDigest, req.PlanVersion = open.ArgsDigest, open.PlanVersion
			if err := req.Validate(); err != nil {
				return rejectf(err.Error())
			}
			decision, err := pc.Approve(cmd.Context(), args[0], req)
			if err != nil {
				return err
			}
			return d.printer().emit(decision, func(w io.Writer) error { return renderDecision(w, args[0], decision) })
		},
	}
	cmd.Flags().StringVar(&argsFile, "args", "", "JSON or YAML file with edited arguments (an object)")
	cmd.Flags().StringVar(&reason, "reason", "", "why")
	return cmd
}

func newDenyCmd(d *deps) *cobra.Command {
	var reason string
	cmd := &cobra.Command{
		Use:     "deny <id> <request-id> --reason TEXT",
		Short:   "Deny a gated tool call; the agent sees the reason",
		Example: `  planmode deny plan-42 approval-3 --reason "never push to main"`,
		Args:    rejectArgs(cobra.ExactArgs(2)),
		RunE: func(cmd *cobra.Command, args []string) error {
			req := signals.DenyToolCallRequest{RequestID: args[1], Reason: reason}
			if err := req.Validate(); err != nil {
				return rejectf("--reason: " + err.Error())
			}
			pc, err := d.plans(cmd.Context())
			if err != nil {
				return err
			}
			decision, err := pc.Deny(cmd.Context(), args[0], req)
			if err != nil {
				return err
			}
			return d.printer().emit(decision, func(w io.Writer) error { return renderDecision(w, args[0], decision) })
		},
	}
	cmd.Flags().StringVar(&reason, "reason", "", "why (required; the agent sees it)")
	return cmd
}

func newRaiseBudgetCmd(d *deps) *cobra.Command {
	var req signals.RaiseBudgetRequest
	cmd := &cobra.Command{
		Use:     "raise-budget <id> [--max-tokens N] [--max-cost-usd X] --reason TEXT",
		Short:   "Raise a plan's budget caps (only upward); a plan paused on its budget resumes",
		Example: `  planmode raise-budget plan-42 --max-tokens 400000 --max-cost-usd 5 --reason "worth finishing"`,
		Args:    rejectArgs(cobra.ExactArgs(1)),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := req.Validate(); err != nil {
				return rejectf(err.Error())
			}
			pc, err := d.plans(cmd.Context())
			if err != nil {
				return err
			}
			resp, err := pc.RaiseBudget(cmd.Context(), args[0], req)
			if err != nil {
				return err
			}
			return d.printer().emit(resp, func(w io.Writer) error {
				state := ""
				if resp.Resumed {
					state = "; resumed"
				}
				_, err := fmt.Fprintf(w, "plan %s: budget now %d tokens, $%.2f%s\n", args[0],
					resp.Budget.MaxTokens, resp.Budget.MaxCostUSD, state)
				return err
			})
		},
	}
	cmd.Flags().IntVar(&req.MaxTokens, "max-tokens", 0, "new token cap (0 leaves it)")
	cmd.Flags().Float64Var(&req.MaxCostUSD, "max-cost-usd", 0, "new cost cap in USD (0 leaves it)")
	cmd.Flags().StringVar(&req.Reason, "reason", "", "why (required)")
	return cmd
}

// openApproval returns the pending approval request of plan id, or a
// refusal naming the open ones.
func openApproval(ctx context.Context, pc *planclient.Client, id, requestID string) (signals.ToolApproval, error) {
	p, err := pc.Pending(ctx, id)
	if err != nil {
		return signals.ToolApproval{}, err
	}
	var open []string
	for _, ap := range p.Approvals {
		if ap.RequestID == requestID {
			return ap, nil
		}
		open = append(open, ap.RequestID)
	}
	if len(open) == 0 {
		return signals.ToolApproval{}, rejectf(fmt.Sprintf("plan %s has no open approval request (see planmode approvals)", id))
	}
	return signals.ToolApproval{}, rejectf(fmt.Sprintf("plan %s has no open approval request %q: open are %s",
		id, requestID, strings.Join(open, ", ")))
}

// readArgs reads edited arguments: a JSON or YAML object.
func readArgs(path string) (json.RawMessage, error) {
	var obj map[string]json.RawMessage
	if err := decodeFile(path, &obj); err != nil {
		return nil, err
	}
	if obj == nil {
		return nil, rejectf(fmt.Sprintf("%s: want a JSON object: the tool's arguments", path))
	}
	b, err := json.Marshal(obj)
	if err != nil {
		return nil, rejectf(fmt.Sprintf("%s: %v", path, err))
	}
	return b, nil
}

// renderDecision writes one line saying how a request was decided.
func renderDecision(w io.Writer, id string, d signals.ApprovalDecision) error {
	edited := ""
	if d.EditedArgs {
		edited = " with edited arguments"
	}
	_, err := fmt.Fprintf(w, "plan %s: request %s %s%s by %s\n", id, d.RequestID, d.Decision, edited, d.By)
	return err
}
