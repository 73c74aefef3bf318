package workflows

import (
	"time"

	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"

	"github.com/planmode/planmode/plan"
	"github.com/planmode/planmode/signals"
	"github.com/planmode/planmode/view"
)

// publisher shows the run outside its queries: the search attributes,
// upserted only when a value changes (an upsert is a command), and the
// current details the Web UI reads (not a command), refreshed when what
// the operator acts on changes and otherwise at most every detailsEvery.
// It reads the run through a view.Run handed to it and writes only its
// own bookkeeping.
type publisher struct {
	attrs published
	// progressAt is when PlanProgress was last upserted; flush cancels
	// the timer that will upsert a percent held back since, nil when none
	// runs (see flushProgress).
	progressAt time.Time
	flush      workflow.CancelFunc
	// goal is what PlanGoal holds, asked of the worker at the start of
	// every run (goalAttrState.resolve).
	goal    goalAttrState
	details shownDetails
}

// resolveGoal asks the worker what PlanGoal holds for goal, once per run
// and before anything is published (goalAttrState.resolve).
func (p *publisher) resolveGoal(ctx workflow.Context, goal string) {
	p.goal.resolve(ctx, goal)
}

// progressEvery bounds how often PlanProgress alone is upserted. An
// upsert is a command the server writes to history and to visibility, and
// in a plan of quick steps the percent changes every step: one a second
// is as current as a list an operator reads, and costs the server a
// fraction. A percent held back is upserted by the next publish once the
// bound has passed (the run's next step or answer), with any upsert due
// anyway (a phase, awaiting), or by a timer progressLag after it was held
// back, should nothing publish by then (flushProgress); so PlanProgress is
// never more than progressLag behind the run.
const progressEvery = time.Second

// progressLag is how long a held-back percent waits for the run to
// publish again before a timer upserts it. It is longer than
// progressEvery so that a plan whose steps end every second or so
// upserts from its own publishes and cancels the timer (two events, no
// workflow task), rather than waking up for it.
const progressLag = 10 * time.Second

// published is what the search attributes last said, so that they are
// upserted only when a value changes. Its phase is empty until the first
// upsert, as nothing is upserted before the run has a phase.
type published struct {
	phase    plan.Phase
	awaiting signals.Awaiting
	percent  int
}

// detailsEvery bounds how often the current details are rebuilt for a
// change nobody has to act on (a step's end, a retry, usage): a few KiB of
// markdown the Web UI reads when a person opens the run, which no person
// reads faster. The bound is in workflow time, so a replay rebuilds them
// where the run did, and a plan of quick steps no longer renders them
// several times a step.
const detailsEvery = time.Second

// shownDetails is what the current details were last built from, and
// when.
type shownDetails struct {
	key   detailsKey
	at    time.Time
	shown bool
}

// detailsKey is what the operator acts on, and what changes the picture
// of the work at once: when any of it changes the details are rebuilt
// whatever the time. A step that starts is in it, so that the details
// name the step that runs while it runs, however long that is; so is a
// new plan version.
type detailsKey struct {
	phase      plan.Phase
	awaiting   signals.Awaiting
	paused     bool
	refining   bool
	revision   int
	selected   string
	answers    int
	skipSeq    int
	skips      int
	version    int
	started    int
	lastError  string
	lastRefuse signals.Rejection
}

// publish upserts the search attributes that changed (PlanProgress at a
// bounded rate, see progressEvery) and refreshes the current details when
// they are due; awaiting is view.Awaiting of v, percent view.Percent of
// it, started how many steps the run has started, and again publishes the run anew (the timer that
// flushes a held-back percent calls it). It reports whether it upserted.
func (p *publisher) publish(ctx workflow.Context, v view.Run, awaiting signals.Awaiting, percent, started int, again func(workflow.Context)) (upserted bool) {
	now := published{phase: v.State.Phase, awaiting: awaiting, percent: percent}
	first := p.attrs.phase == ""
	var ups []temporal.SearchAttributeUpdate
	if first || now.phase != p.attrs.phase {
		ups = append(ups, signals.PhaseAttr.ValueSet(string(now.phase)))
	}
	if first || now.awaiting != p.attrs.awaiting {
		ups = append(ups, signals.AwaitingAttr.ValueSet(string(now.awaiting)))
	}
	// Set by the workflow, not by the client that starts the run, so
	// that a plan started by any client (another SDK, the temporal CLI)
	// is found by its goal; see goalAttrState.resolve.
	goal, setGoal := p.goal.due()
	if setGoal {
		ups = append(ups, signals.GoalAttr.ValueSet(goal))
	}
	at := workflow.Now(ctx)
	progress := first || now.percent != p.attrs.percent
	if progress && len(ups) == 0 && !p.progressDue(at) {
		// Held back; the percent last upserted stays in p.attrs.
		p.flushProgress(ctx, again)
		now.percent, progress = p.attrs.percent, false
	}
	if progress {
		ups = append(ups, signals.ProgressAttr.ValueSet(int64(now.percent)))
	}
	if len(ups) > 0 && now.phase != "" {
		if err := workflow.UpsertTypedSearchAttributes(ctx, ups...); err != nil {
			workflow.GetLogger(ctx).Warn("upsert search attributes", "error", err)
		}
		upserted = true
		p.attrs = now
		p.goal.published = p.goal.published || setGoal
		if progress {
			p.progressAt = at
			if p.flush != nil {
				p.flush()
				p.flush = nil
			}
		}
	}
	p.refreshDetails(ctx, v, now.awaiting, started)
	return upserted
}

// progressDue reports whether a changed percent may be upserted on its
// own at workflow time at: progressEvery has passed since the last one.
func (p *publisher) progressDue(at time.Time) bool {
	return at.Sub(p.progressAt) >= progressEvery
}

// flushProgress makes sure a held-back percent is upserted progressLag
// from now, should nothing publish it before (which cancels the timer):
// one timer at a time, in a context of its own that no cancellation of
// the run reaches (the end of the run publishes anyway, and abandons the
// timer).
func (p *publisher) flushProgress(ctx workflow.Context, again func(workflow.Context)) {
	if p.flush != nil {
		return
	}
	ctx, _ = workflow.NewDisconnectedContext(ctx)
	ctx, p.flush = workflow.WithCancel(ctx)
	workflow.Go(ctx, func(ctx workflow.Context) {
		if workflow.Sleep(ctx, progressLag) == nil {
			p.flush = nil
			again(ctx)
		}
	})
}

// refreshDetails rebuilds the current details when what the operator acts
// on changed (detailsKey) or detailsEvery has passed since they were
// built.
func (p *publisher) refreshDetails(ctx workflow.Context, v view.Run, awaiting signals.Awaiting, started int) {
	st := v.State
	key := detailsKey{phase: st.Phase, awaiting: awaiting, paused: st.Paused, refining: v.Refining,
		revision: st.Options.Revision, selected: st.Options.SelectedID, answers: len(v.Clarify.Answers),
		skipSeq: st.SkipSeq, skips: len(st.SkipConfirmations), started: started, lastError: st.LastError}
	if st.Plan != nil {
		key.version = st.Plan.Version
	}
	if n := len(st.Rejected); n > 0 {
		key.lastRefuse = st.Rejected[n-1]
	}
	at := workflow.Now(ctx)
	if !p.details.due(key, at) {
		return
	}
	workflow.SetCurrentDetails(ctx, view.Details(v))
	p.details = shownDetails{key: key, at: at, shown: true}
}

// due reports whether details built from what key says are due at
// workflow time at: none were built yet, key changed, or detailsEvery
// has passed since the last ones.
func (d shownDetails) due(key detailsKey, at time.Time) bool {
	return !d.shown || key != d.key || at.Sub(d.at) >= detailsEvery
}
