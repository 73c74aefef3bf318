package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/schollz/progressbar/v3"
	"github.com/spf13/cobra"
	enumspb "go.temporal.io/api/enums/v1"

	"github.com/planmode/planmode/plan"
	"github.com/planmode/planmode/planclient"
	"github.com/planmode/planmode/signals"
)

func newWatchCmd(d *deps) *cobra.Command {
	var f followFlags
	cmd := &cobra.Command{
		Use:   "watch <id>",
		Short: "Follow a plan's progress until it ends or waits for you, then say what to run",
		Long: `Without --follow, watch shows the plan's progress until it ends or waits for you,
then says what to run. With --follow it prints the plan's event log as it happens
until the plan ends, and exits as result does (0 completed, 5 failed or cancelled).`,
		Example: `  planmode watch plan-42
  planmode watch plan-42 --output json            # JSON Lines: progress events, then waiting or ended
  planmode watch plan-42 --follow                 # every event of the plan's log, as it happens
  planmode watch plan-42 --follow --output json   # JSON Lines, one event each, with its seq
  planmode watch plan-42 --follow --from 17       # resume after event 17
  planmode watch plan-42 --follow --text          # and the model's text as it is written`,
		Args: rejectArgs(cobra.ExactArgs(1)),
		RunE: func(cmd *cobra.Command, args []string) error {
			if f.follow || cmd.Flags().Changed("from") || f.text {
				return followLog(cmd.Context(), d, args[0], f)
			}
			return follow(cmd.Context(), d, args[0])
		},
	}
	queryTimeoutFlag(cmd, &d.queryTimeout)
	cmd.Flags().BoolVar(&f.follow, "follow", false, "print the plan's events as they happen, until it ends")
	cmd.Flags().Int64Var(&f.from, "from", 0, "with --follow: start after this event's seq (0: from the first)")
	cmd.Flags().BoolVar(&f.text, "text", false, "with --follow: show the text of running model calls as it arrives")
	return cmd
}

// watcher follows one plan. On a terminal it draws a progress bar; on
// other output it writes a line per change of phase, step or percent;
// under --output json it writes JSON Lines (see [watchEvent]). A line is
// printed for each step that starts or ends, and the step table at the
// end.
type watcher struct {
	pc  *planclient.Client
	id  string
	out io.Writer
	// json is --output json: JSON Lines instead of text.
	json bool
	// queryTimeout bounds each query beyond the progress one.
	queryTimeout time.Duration
	bar          *progressbar.ProgressBar
	steps        map[string]plan.StepStatus
	last         signals.Progress
	shown        string
}

// follow watches plan id as watch does: it checks --query-timeout, dials
// and follows the plan on the invocation's output, asking every poll
// interval.
func follow(ctx context.Context, d *deps, id string) error {
	if err := checkQueryTimeout(d.queryTimeout); err != nil {
		return err
	}
	pc, err := d.plans(ctx)
	if err != nil {
		return err
	}
	p := d.printer()
	w := &watcher{pc: pc, id: id, out: p.out, json: p.json, queryTimeout: d.queryTimeout, steps: map[string]plan.StepStatus{}}
	if !w.json && d.live() {
		w.bar = progressbar.NewOptions(100, progressbar.OptionSetWriter(w.out), progressbar.OptionSetWidth(30),
			progressbar.OptionSetPredictTime(false), progressbar.OptionThrottle(0), progressbar.OptionSetRenderBlankState(true))
	}
	return w.watch(ctx, d.pollInterval)
}

// watch polls the progress query every interval until the plan ends or
// waits for input.
func (w *watcher) watch(ctx context.Context, interval time.Duration) error {
	tick := time.NewTicker(interval)
	defer tick.Stop()
	for {
		done, err := w.poll(ctx)
		if done || err != nil {
			return err
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-tick.C:
		}
	}
}

// poll takes one look at the plan and reports whether watching is over.
// A plan not yet picked up by a worker, or that does not answer within
// the query timeout, is reported from its search attributes and watched
// on; one that closed ends the watch.
func (w *watcher) poll(ctx context.Context) (bool, error) {
	s, err := w.pc.Standing(ctx, w.id)
	if err != nil {
		return true, err
	}
	if s.Progress == nil {
		if s.Status != "Running" {
			return w.closed(ctx, errors.New(s.Note))
		}
		return false, w.unanswered(s)
	}
	prog := *s.Progress
	if w.json {
		if prog.Phase != w.last.Phase || prog.Percent != w.last.Percent || prog.Awaiting != w.last.Awaiting || stepID(prog) != stepID(w.last) {
			if err := w.event(watchEvent{Event: eventProgress, Progress: &prog}); err != nil {
				return true, err
			}
		}
	} else {
		w.render(ctx, prog)
	}
	w.last = prog
	switch {
	case prog.Phase.Terminal():
		return true, w.finish(ctx, prog.Phase)
	case prog.Awaiting != "" && prog.Awaiting != signals.AwaitingNone:
		return true, w.waiting(ctx, prog.Awaiting)
	}
	return false, nil
}

// unanswered reports a plan that did not answer its query, once per
// change of what its search attributes say: a "standing" event under
// --output json, else a line.
func (w *watcher) unanswered(s planclient.Standing) error {
	key := s
	key.QueuedFor = 0 // a line per change, not per second queued
	k := key.Summary()
	if k == w.shown {
		return nil
	}
	w.shown = k
	if w.json {
		return w.event(watchEvent{Event: eventStanding, Standing: &s})
	}
	w.println(s.Summary())
	return nil
}

// render shows the progress and a line for each step that changed.
func (w *watcher) render(ctx context.Context, prog signals.Progress) {
	desc := string(prog.Phase)
	if prog.CurrentStep != nil {
		desc += ": " + clip(prog.CurrentStep.Title, 40)
	}
	if prog.Paused {
		desc += " (paused)"
	}
	if w.bar != nil {
		w.bar.Describe(desc)
		_ = w.bar.Set(prog.Percent)
	} else if line := fmt.Sprintf("[%3d%%] %s", prog.Percent, desc); line != w.shown {
		fmt.Fprintln(w.out, line)
		w.shown = line
	}
	if prog.Totals.Total == 0 {
		return
	}
	qctx, cancel := context.WithTimeout(ctx, w.queryTimeout)
	defer cancel()
	view, err := w.pc.Plan(qctx, w.id)
	if err != nil || view.Plan == nil {
		return // the next poll tries again
	}
	for _, s := range view.Plan.Steps {
		if w.steps[s.ID] == s.Status {
			continue
		}
		w.steps[s.ID] = s.Status
		if s.Status != plan.StepPending {
			w.println(fmt.Sprintf("%s %d %s: %s", statusMarks[s.Status], s.Number, clip(s.Title, titleWidth), s.Status))
		}
	}
}

// println writes a line above the bar, or plainly without one.
func (w *watcher) println(line string) {
	if w.bar == nil {
		fmt.Fprintln(w.out, line)
		return
	}
	_ = w.bar.Clear()
	fmt.Fprintln(w.out, line)
	_ = w.bar.RenderBlank()
}

// waiting stops the bar and says what the plan waits for.
func (w *watcher) waiting(ctx context.Context, awaiting signals.Awaiting) error {
	qctx, cancel := context.WithTimeout(ctx, w.queryTimeout)
	defer cancel()
	pending, err := w.pc.Pending(qctx, w.id)
	if err != nil {
		return err
	}
	if w.json {
		return w.event(watchEvent{Event: eventWaiting, Pending: &pending})
	}
	w.stopBar()
	fmt.Fprintf(w.out, "plan %s waits for %s\n", w.id, awaiting)
	renderPending(w.out, w.id, pending)
	return nil
}

// finish prints the steps and the next command once the plan has ended.
func (w *watcher) finish(ctx context.Context, phase plan.Phase) error {
	if w.json {
		return nil
	}
	w.stopBar()
	fmt.Fprintf(w.out, "plan %s %s\n", w.id, phase)
	qctx, cancel := context.WithTimeout(ctx, w.queryTimeout)
	defer cancel()
	if view, err := w.pc.Plan(qctx, w.id); err == nil && view.Plan != nil {
		if err := renderSteps(w.out, view.Plan.Steps); err != nil {
			return err
		}
	}
	fmt.Fprintf(w.out, "Next: planmode result %s\n", w.id)
	return nil
}

// stopBar leaves the bar as it is and moves to a new line.
func (w *watcher) stopBar() {
	if w.bar != nil {
		_ = w.bar.Exit()
		fmt.Fprintln(w.out)
	}
}

// closed handles a failed query: a plan that has ended (and whose worker
// may be gone) finishes the watch; anything else is an error.
func (w *watcher) closed(ctx context.Context, qerr error) (bool, error) {
	st, err := w.pc.Status(ctx, w.id)
	if err != nil {
		return true, errors.Join(qerr, err)
	}
	if st == enumspb.WORKFLOW_EXECUTION_STATUS_RUNNING {
		return true, fmt.Errorf("plan %s: %w", w.id, qerr)
	}
	status := w.endStatus(ctx, st)
	if w.json {
		return true, w.event(watchEvent{Event: eventEnded, Status: status})
	}
	w.stopBar()
	fmt.Fprintf(w.out, "plan %s ended: %s\n", w.id, status)
	if reason := w.endReason(ctx, st); reason != "" {
		fmt.Fprintf(w.out, "Error: %s\n", reason)
	}
	fmt.Fprintf(w.out, "Next: planmode result %s\n", w.id)
	return true, nil
}

// endReason is the Result's error of a plan that ended Failed or Canceled
// with its Result in the error's details, or "".
func (w *watcher) endReason(ctx context.Context, st enumspb.WorkflowExecutionStatus) string {
	if st != enumspb.WORKFLOW_EXECUTION_STATUS_FAILED && st != enumspb.WORKFLOW_EXECUTION_STATUS_CANCELED {
		return ""
	}
	if res, err := w.pc.Result(ctx, w.id); err == nil {
		return res.Error
	}
	return ""
}

// endStatus is how a closed plan ended: Temporal's status, which says
// Failed or Canceled for a plan that failed or was cancelled (and
// terminated or timed out for one stopped from outside), or the Result's
// status when the run completed: completed or answered, or failed or
// cancelled for a plan that ran before plans ended Failed or Canceled.
func (w *watcher) endStatus(ctx context.Context, st enumspb.WorkflowExecutionStatus) string {
	if st != enumspb.WORKFLOW_EXECUTION_STATUS_COMPLETED {
		return st.String()
	}
	res, err := w.pc.Result(ctx, w.id)
	if err != nil || res.Status == "" {
		return st.String()
	}
	return string(res.Status)
}

func stepID(p signals.Progress) string {
	if p.CurrentStep == nil {
		return ""
	}
	return p.CurrentStep.ID
}

// Events of watch --output json.
const (
	eventProgress = "progress"
	eventStanding = "standing"
	eventWaiting  = "waiting"
	eventEnded    = "ended"
)

// watchEvent is one line of watch --output json, which writes JSON Lines
// (one compact object per line) so a script can read each as it comes:
// "progress" with the progress answer when it changes, "standing" with
// what the server knows (planclient.Standing) when the plan is queued for a
// worker or did not answer within the query timeout, "waiting" with the
// pending answer when the plan stops for input, "ended" with how the plan
// ended (Temporal's status, Failed or Canceled included, or the Result's
// status of a completed run, see endStatus) when it closed and can no
// longer be queried.
type watchEvent struct {
	Event    string               `json:"event"`
	Progress *signals.Progress    `json:"progress,omitempty"`
	Standing *planclient.Standing `json:"standing,omitempty"`
	Pending  *signals.Pending     `json:"pending,omitempty"`
	Status   string               `json:"status,omitempty"`
}

// event writes e as one line of JSON.
func (w *watcher) event(e watchEvent) error {
	if err := json.NewEncoder(w.out).Encode(e); err != nil {
		return fmt.Errorf("write JSON: %w", err)
	}
	return nil
}
