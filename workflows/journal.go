package workflows

import (
	"encoding/json"
	"fmt"
	"time"

	"go.temporal.io/sdk/workflow"

	"github.com/planmode/planmode/plan"
	"github.com/planmode/planmode/signals"
	"github.com/planmode/planmode/view"
)

// journal keeps the run's event log, the one source every reader of the
// run's changes is fed from: it numbers each event (the numbers go on
// across continue-as-new), keeps the recent ones (signals.EventLogState,
// which the current details show and the continuation carries), hands
// each to the notifier, which delivers those that are webhook events, and
// writes the events of a workflow task to the run's history as one
// marker, from which followers read them (signals.EventBatch).
type journal struct {
	st signals.EventLogState
	// pending are the events recorded since the last marker; the writer
	// coroutine (start) writes them once the workflow's other coroutines
	// are blocked, so one workflow task writes one marker, or two.
	pending []signals.Event
	hooks   deliverer
	// about is the run, whose progress (view.Progress, the progress
	// query's answer) a batch carries when progressDue was called since
	// the last one that did, or when unsnapped reached
	// signals.ProgressSnapshotEvery.
	about     viewer
	due       bool
	unsnapped int
}

// viewer shows the run as its queries read it.
type viewer interface {
	view() view.Run
}

// progressDue makes the next batch carry the run's progress, written
// without events if none comes in the same workflow task.
func (j *journal) progressDue() { j.due = true }

// deliverer delivers the run's events that are webhook events (the
// notifier).
type deliverer interface {
	deliver(ctx workflow.Context, e signals.Event)
}

// eventLog is what the run's parts ask of the journal: record one event
// of type typ, about step (nil when it concerns no step), with a line a
// person reads and data, the type's own part (see signals.EventType),
// which is marshalled to JSON.
type eventLog interface {
	record(ctx workflow.Context, typ signals.EventType, step *plan.Step, msg string, data any)
}

// record numbers the event, keeps it, hands it to the notifier and
// queues it for the next marker. The data marshals as JSON does
// (json.Marshal sorts map keys), so a replay records the same bytes.
func (j *journal) record(ctx workflow.Context, typ signals.EventType, step *plan.Step, msg string, data any) {
	j.st.EventSeq++
	e := signals.Event{Seq: j.st.EventSeq, At: workflow.Now(ctx), Type: typ, Message: msg}
	if step != nil {
		e.Step = &signals.StepRef{ID: step.ID, Number: step.Number, Title: step.Title}
	}
	if data != nil {
		b, err := json.Marshal(data) //workflowcheck:ignore
		if err != nil {
			b, _ = json.Marshal(map[string]string{"error": fmt.Sprintf("data of %s: %v", typ, err)}) //workflowcheck:ignore
		}
		e.Data = b
	}
	// The webhook gets the whole event; the log keeps it bounded.
	j.hooks.deliver(ctx, e)
	e = e.Bounded() //workflowcheck:ignore (it marshals a plain struct: the same bytes every time)
	j.st.Keep(e)
	j.pending = append(j.pending, e)
	switch typ {
	case signals.EventPlanUpdated, signals.EventPaused, signals.EventResumed, signals.EventBudgetExceeded, signals.EventBudgetRaised:
		// A reader counts steps and usage from the events since the last
		// progress (Progress.Since); a changed plan, a pause or a budget
		// changes what they count from, so the progress goes with them.
		j.due = true
	}
}

// told records a phase-changed and an awaiting-changed event for what
// changed since the log last told of them.
func (j *journal) told(ctx workflow.Context, phase plan.Phase, awaiting signals.Awaiting) {
	if phase != "" && phase != j.st.EventPhase {
		j.st.EventPhase = phase
		j.record(ctx, signals.EventPhaseChanged, nil, "phase "+string(phase), map[string]plan.Phase{"phase": phase})
	}
	first := j.st.EventAwaiting == "" && awaiting == signals.AwaitingNone
	if awaiting != "" && awaiting != j.st.EventAwaiting && !first {
		j.st.EventAwaiting = awaiting
		j.record(ctx, signals.EventAwaitingChanged, nil, "awaiting "+string(awaiting),
			map[string]signals.Awaiting{"awaiting": awaiting})
	}
}

// start runs the writer: a coroutine that writes the pending events as
// one marker whenever there are some and the rest of the workflow waits.
// It runs in a context no cancellation reaches, so the events of a
// cancelled run are written too.
func (j *journal) start(ctx workflow.Context) {
	ctx, _ = workflow.NewDisconnectedContext(ctx)
	workflow.Go(ctx, func(ctx workflow.Context) {
		for {
			if err := workflow.Await(ctx, func() bool { return len(j.pending) > 0 || j.due }); err != nil {
				return
			}
			j.write(ctx)
		}
	})
}

// written reports whether every event recorded is in a marker: the run
// returns or continues as new only then, as a coroutine does not run once
// the workflow function returned.
func (j *journal) written() bool {
	return len(j.pending) == 0
}

// write records the pending events as one SideEffect marker: the marker
// is the log's durable form, read by followers from the history, and its
// value is not used (a replay returns the recorded one).
func (j *journal) write(ctx workflow.Context) {
	batch := signals.EventBatch{Log: signals.EventLogName, At: workflow.Now(ctx), Events: j.pending}
	for i, e := range batch.Events {
		// The task's events share its time: the marker says it once.
		if e.At.Equal(batch.At) {
			batch.Events[i].At = time.Time{}
		}
	}
	j.pending = nil
	j.unsnapped++
	if j.due || j.unsnapped >= signals.ProgressSnapshotEvery {
		// A run that ended is read from its Result, not its log.
		if p := signals.LoggedProgress(view.Progress(j.about.view(), workflow.Now(ctx))); !p.Phase.Terminal() {
			batch.Progress = &p
		}
		j.due, j.unsnapped = false, 0
	}
	_ = workflow.SideEffect(ctx, func(workflow.Context) any { return batch })
}

// The data of the log's events that are not webhook events (webhook
// events carry activities.NotifyData, the webhook body's shape). Their
// JSON is what followers read: never rename a tag.

// stepData is the data of a step event: the percent of the plan done, the
// attempt a retry follows, and a failed step's error.
type stepData struct {
	Percent int    `json:"percent"`
	Attempt int    `json:"attempt,omitempty"`
	Error   string `json:"error,omitempty"`
}

// byReason is the data of pause and resume: who and why.
type byReason struct {
	By     string `json:"by,omitempty"`
	Reason string `json:"reason,omitempty"`
}

// planUpdated is the data of plan-updated: the new version, who changed
// the plan and why.
type planUpdated struct {
	Version int    `json:"version"`
	By      string `json:"by,omitempty"`
	Reason  string `json:"reason,omitempty"`
}

// budgetRaised is the data of budget-raised: the caps now, who raised
// them and why.
type budgetRaised struct {
	signals.Budget
	By     string `json:"by,omitempty"`
	Reason string `json:"reason,omitempty"`
}

// budgetUsed is the data of budget-used: the usage so far and the caps in
// force (0 is no cap).
type budgetUsed struct {
	Tokens     int     `json:"tokens"`
	CostUSD    float64 `json:"costUSD"`
	MaxTokens  int     `json:"maxTokens,omitempty"`
	MaxCostUSD float64 `json:"maxCostUSD,omitempty"`
}

// usageData is the data of usage: what one activity's model calls used,
// in which phase (plan.Usage's fields, zeros left out).
type usageData struct {
	Phase            string  `json:"phase"`
	PromptTokens     int     `json:"promptTokens,omitempty"`
	CompletionTokens int     `json:"completionTokens,omitempty"`
	TotalTokens      int     `json:"totalTokens,omitempty"`
	CostUSD          float64 `json:"costUSD,omitempty"`
	Calls            int     `json:"calls,omitempty"`
}

// optionSelected is the data of option-selected.
type optionSelected struct {
	OptionID string `json:"optionId"`
	Title    string `json:"title"`
	By       string `json:"by"`
	Reason   string `json:"reason,omitempty"`
}

// optionBrief is one option as options-ready tells it.
type optionBrief struct {
	ID    string  `json:"id"`
	Title string  `json:"title"`
	Score float64 `json:"score"`
}

// optionsReady is the data of options-ready: the revision, the
// recommended option and each option's id, title and score.
func optionsReady(o *signals.OptionsView) any {
	d := struct {
		Revision    int           `json:"revision"`
		Recommended string        `json:"recommendedId,omitempty"`
		Options     []optionBrief `json:"options"`
	}{Revision: o.Revision, Recommended: o.RecommendedID}
	for _, op := range o.Options {
		d.Options = append(d.Options, optionBrief{ID: op.ID, Title: op.Title, Score: op.Score})
	}
	return d
}

// confirmationAnswered is the data of confirmation-answered.
type confirmationAnswered struct {
	RequestID string   `json:"requestId"`
	StepIDs   []string `json:"stepIds"`
	Approved  bool     `json:"approved"`
	By        string   `json:"by"`
	Note      string   `json:"note,omitempty"`
}

// reflectionDecided is the data of reflection-decided. Skipped is set
// when the decision was taken without asking the model (the step did
// what it planned, plan.NeedsReflection).
type reflectionDecided struct {
	Decision   plan.Decision `json:"decision"`
	Reason     string        `json:"reason,omitempty"`
	Confidence float64       `json:"confidence,omitempty"`
	Skipped    bool          `json:"skipped,omitempty"`
}

// toolCall is the data of tool-call: the tool, the digest of its
// arguments (never the arguments), started or finished, and how it came
// out.
type toolCall struct {
	Tool       string `json:"tool"`
	ArgsDigest string `json:"argsDigest"`
	State      string `json:"state"`
	Success    *bool  `json:"success,omitempty"`
	Outcome    string `json:"outcome,omitempty"`
}
