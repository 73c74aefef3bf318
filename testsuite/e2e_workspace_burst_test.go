package testsuite

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/temporal"

	"github.com/planmode/planmode/plan"
	"github.com/planmode/planmode/planclient"
	"github.com/planmode/planmode/signals"
)

// The tree of TestPlansOnOverlappingWorkspacesNeverOverlap: burstGroups
// top folders, each with the plans of burstFolders on it and inside it,
// and burstSolos folders of one plan each that overlap nothing.
const (
	burstGroups = 10
	burstSolos  = 20
)

// burstFolders is where a group's plans work, under its top folder
// (""): several in the same folder, in a parent and its children, and in
// siblings, which do not overlap. The first `waiting` plans of a folder
// wait for a busy workspace, the others refuse it. Few wait, since a
// waiting plan tries again with a backoff that doubles up to a minute:
// more of them would keep the test waiting for minutes.
var burstFolders = []struct {
	sub            string
	plans, waiting int
}{{"", 3, 1}, {"a", 2, 1}, {"b", 2, 1}, {"a/x", 1, 0}}

// holdMakefile's target records, from inside the sandbox, the wall
// clock in nanoseconds as the command enters, and again as it leaves
// after working in the workspace for a moment. It writes no file, so
// the plans' folders stay as they were.
const holdMakefile = "hold:\n\t@echo \"enter $$(date +%s%N)\"; sleep 1; echo \"leave $$(date +%s%N)\"\n"

// stampRE finds the lines of holdMakefile in a step's output.
var stampRE = regexp.MustCompile(`\b(enter|leave) (\d{16,})\b`)

// span is a stretch of time; an empty one (zero from) overlaps nothing.
type span struct{ from, to time.Time }

// overlaps reports whether s and o share a moment; touching ends do not.
func (s span) overlaps(o span) bool {
	return !s.from.IsZero() && !o.from.IsZero() && s.from.Before(o.to) && o.from.Before(s.to)
}

func (s span) String() string {
	return fmt.Sprintf("%s–%s", s.from.Format("15:04:05.000000"), s.to.Format("15:04:05.000000"))
}

// burstRun is one plan of the burst: where it works, what it does when
// its workspace is busy, and what it did.
type burstRun struct {
	id, ws string
	onBusy signals.BusyPolicy

	// completed or refused (refusal is the error's message) says how it
	// ended; err is any other end.
	completed, refused bool
	refusal            string
	err                error
	// sandbox is the hold command's run, stamped from inside the
	// sandbox; held is the lease as the plan's own history shows it, from
	// the completion of the AcquireWorkspace activity that granted it to
	// the first release-workspace signal it sent (the server's clock).
	sandbox, held span
	// busyTries counts the acquires refused busy before the lease (wait),
	// toolRuns the RunTool activities the plan scheduled.
	busyTries, toolRuns int
	// started is when the server started the plan.
	started time.Time
}

// workspaceBurst makes the tree's folders under root, each with the
// hold Makefile, and returns the plans of the burst, ids made unique by
// queue.
func workspaceBurst(t *testing.T, root, queue string) []*burstRun {
	t.Helper()
	var runs []*burstRun
	add := func(ws string, onBusy signals.BusyPolicy) {
		runs = append(runs, &burstRun{id: fmt.Sprintf("burst-%03d-%s", len(runs), queue), ws: ws, onBusy: onBusy})
	}
	for g := range burstGroups {
		for _, f := range burstFolders {
			ws := filepath.Join(fmt.Sprintf("g%d", g), f.sub)
			for i := range f.plans {
				onBusy := signals.OnBusyRefuse
				if i < f.waiting {
					onBusy = signals.OnBusyWait
				}
				add(ws, onBusy)
			}
		}
	}
	for s := range burstSolos {
		add(fmt.Sprintf("solo%d", s), signals.OnBusyRefuse)
	}
	for _, r := range runs {
		dir := filepath.Join(root, r.ws)
		require.NoError(t, os.MkdirAll(dir, 0o755))
		require.NoError(t, os.WriteFile(filepath.Join(dir, "Makefile"), []byte(holdMakefile), 0o644))
	}
	return runs
}

// TestPlansOnOverlappingWorkspacesNeverOverlap starts a hundred plans at
// once, on a real worker, on a tree of workspaces: several in one folder,
// in a parent and its children and grandchild, in siblings, and in
// folders of their own. Each plan is handed one step, a command that
// stamps the clock from inside the sandbox as it enters, works a moment
// and stamps it again as it leaves. One plan of each shared folder waits
// for a busy workspace, the others refuse it (onBusy): every waiting
// plan completes, every other one completes or fails as an
// invalid request naming a plan of the burst that holds an overlapping
// workspace, having run nothing; none is lost. For every two plans whose
// workspaces are the same or nested, both what their commands stamped and
// their leases as their histories show them (granted to released) are
// disjoint, and each command ran within its plan's lease; plans in
// folders apart did run side by side.
func TestPlansOnOverlappingWorkspacesNeverOverlap(t *testing.T) {
	t.Parallel()
	pw := startPlanWorker(t)
	pc := planclient.New(pw.srv.Client, planclient.WithTaskQueue(pw.queue))
	ctx, cancel := testContext(t)
	defer cancel()
	runs := workspaceBurst(t, pw.root, pw.queue)

	began := time.Now()
	startBurst(ctx, t, pc, runs)
	var wg sync.WaitGroup
	for _, r := range runs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r.end(ctx, pc)
			r.read(ctx, t, pw.srv.Client)
		}()
	}
	wg.Wait()
	took := time.Since(began)

	byID := map[string]*burstRun{}
	for _, r := range runs {
		byID[r.id] = r
	}
	var completed, refused, waited, tries int
	var longest, holding time.Duration
	for _, r := range runs {
		completed, refused = completed+btoi(r.completed), refused+btoi(r.refused)
		holding += r.held.to.Sub(r.held.from)
		if r.completed && r.busyTries > 0 {
			waited, tries = waited+1, max(tries, r.busyTries)
			longest = max(longest, r.held.from.Sub(r.started))
		}
		r.assertEnd(t, byID)
	}
	apart := assertNoOverlap(t, runs)
	t.Logf("%d plans in %s: %d completed (%d after waiting, at most %s and %d refusals), %d refused; "+
		"leases held %s on average, at most %d at once; %d pairs of plans in folders apart ran side by side",
		len(runs), took.Round(time.Millisecond), completed, waited, longest.Round(time.Millisecond), tries, refused,
		(holding / time.Duration(max(completed, 1))).Round(time.Millisecond), mostAtOnce(runs), apart)

	assert.Equal(t, len(runs), completed+refused, "every plan completed or was refused: none lost")
	assert.Positive(t, refused, "plans that refuse a busy workspace met one")
	assert.Positive(t, waited, "plans that wait for a busy workspace met one")
	assert.Positive(t, apart, "leases do not serialize plans in folders apart")
}

// startBurst starts every plan of runs at once, each from a goroutine of
// its own, with its one hold step.
func startBurst(ctx context.Context, t *testing.T, pc *planclient.Client, runs []*burstRun) {
	t.Helper()
	hold := toolStep("hold", plan.ToolRunCommand, map[string]any{"command": "make", "args": []any{"-s", "hold"}})
	errs := make([]error, len(runs))
	gate := make(chan struct{})
	var wg sync.WaitGroup
	for i, r := range runs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-gate
			_, errs[i] = pc.Start(ctx, r.id, signals.StartRequest{Goal: "Hold " + r.ws, Workspace: r.ws,
				OnBusy: r.onBusy, Plan: &signals.ExternalPlan{Steps: []plan.Step{hold}}})
		}()
	}
	close(gate)
	wg.Wait()
	require.NoError(t, errors.Join(errs...), "start the burst")
}

// end waits for r's plan to end and records how: completed with the
// stamps its step printed, or refused with the refusal's message.
func (r *burstRun) end(ctx context.Context, pc *planclient.Client) {
	res, err := pc.Result(ctx, r.id)
	var app *temporal.ApplicationError
	switch {
	case err == nil && res.Status == signals.StatusCompleted:
		r.completed = true
		if s := res.Plan.StepByID("hold"); s != nil && s.Result != nil {
			r.sandbox, r.err = stamps(s.Result.Output)
		}
	case err == nil:
		r.err = fmt.Errorf("ended %s: %s", res.Status, res.Error)
	case errors.As(err, &app) && app.Type() == signals.ErrorTypeInvalidRequest && app.NonRetryable():
		r.refused, r.refusal = true, app.Message()
	default:
		r.err = err
	}
}

// stamps returns the span between the enter and leave stamps of out.
func stamps(out string) (span, error) {
	var s span
	found := map[string]int{}
	for _, m := range stampRE.FindAllStringSubmatch(out, -1) {
		ns, err := strconv.ParseInt(m[2], 10, 64)
		if err != nil {
			return s, fmt.Errorf("stamp %q: %w", m[0], err)
		}
		found[m[1]]++
		if m[1] == "enter" {
			s.from = time.Unix(0, ns)
		} else {
			s.to = time.Unix(0, ns)
		}
	}
	if found["enter"] != 1 || found["leave"] != 1 || !s.from.Before(s.to) {
		return span{}, fmt.Errorf("want one enter and one later leave stamp, got %v in %q", found, out)
	}
	return s, nil
}

// read reads r's history: the lease it held and the activities it ran.
func (r *burstRun) read(ctx context.Context, t *testing.T, c client.Client) {
	types := map[int64]string{}
	it := c.GetWorkflowHistory(ctx, r.id, "", false, enumspb.HISTORY_EVENT_FILTER_TYPE_ALL_EVENT)
	for it.HasNext() {
		ev, err := it.Next()
		if err != nil {
			t.Errorf("history of %s: %v", r.id, err)
			return
		}
		at := ev.GetEventTime().AsTime()
		switch ev.GetEventType() {
		case enumspb.EVENT_TYPE_WORKFLOW_EXECUTION_STARTED:
			r.started = at
		case enumspb.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED:
			name := ev.GetActivityTaskScheduledEventAttributes().GetActivityType().GetName()
			types[ev.GetEventId()] = name
			r.toolRuns += btoi(name == "RunTool")
		case enumspb.EVENT_TYPE_ACTIVITY_TASK_COMPLETED:
			if types[ev.GetActivityTaskCompletedEventAttributes().GetScheduledEventId()] == "AcquireWorkspace" && r.held.from.IsZero() {
				r.held.from = at
			}
		case enumspb.EVENT_TYPE_ACTIVITY_TASK_FAILED:
			a := ev.GetActivityTaskFailedEventAttributes()
			if types[a.GetScheduledEventId()] == "AcquireWorkspace" {
				typ := a.GetFailure().GetApplicationFailureInfo().GetType()
				assert.Equal(t, signals.ErrorTypeWorkspaceBusy, typ, "plan %s: acquire failed: %s", r.id, a.GetFailure().GetMessage())
				r.busyTries++
			}
		case enumspb.EVENT_TYPE_SIGNAL_EXTERNAL_WORKFLOW_EXECUTION_INITIATED:
			if ev.GetSignalExternalWorkflowExecutionInitiatedEventAttributes().GetSignalName() == signals.ReleaseWorkspace.Name &&
				r.held.to.IsZero() {
				r.held.to = at
			}
		}
	}
}

// holderRE finds the plan a refusal names (signals.BusyMessage).
var holderRE = regexp.MustCompile(`held by plan (\S+) \(run `)

// assertEnd checks how r ended against its policy: a plan that waits
// completes; a refused one refuses, names a plan of the burst (byID)
// whose workspace overlaps its own, and ran nothing; a completed one ran
// its command once, within its lease.
func (r *burstRun) assertEnd(t *testing.T, byID map[string]*burstRun) {
	t.Helper()
	if !assert.NoError(t, r.err, "plan %s on %q", r.id, r.ws) {
		return
	}
	if r.refused {
		assert.Equal(t, signals.OnBusyRefuse, r.onBusy, "plan %s waits: it is not refused: %s", r.id, r.refusal)
		assert.Zero(t, r.toolRuns, "refused plan %s ran nothing", r.id)
		assert.True(t, r.held.from.IsZero() && r.held.to.IsZero(), "refused plan %s held no lease: %s", r.id, r.held)
		m := holderRE.FindStringSubmatch(r.refusal)
		if assert.NotNil(t, m, "plan %s: the refusal names the holder: %s", r.id, r.refusal) {
			h := byID[m[1]]
			if assert.NotNil(t, h, "plan %s was refused for %s, not a plan of the burst", r.id, m[1]) {
				assert.True(t, plan.WorkspacesOverlap(h.ws, r.ws), "plan %s on %q refused for %s on %q", r.id, r.ws, h.id, h.ws)
			}
		}
		return
	}
	assert.Equal(t, 1, r.toolRuns, "plan %s ran its one command", r.id)
	if r.onBusy == signals.OnBusyRefuse {
		assert.Zero(t, r.busyTries, "plan %s refuses a busy workspace: it completed without meeting one", r.id)
	}
	require.False(t, r.held.from.IsZero() || r.held.to.IsZero(), "plan %s: its history shows its lease: %s", r.id, r.held)
	// One host, one clock: the server stamps the events, the sandbox its
	// lines, and each event causes the next.
	assert.True(t, !r.sandbox.from.Before(r.held.from) && !r.held.to.Before(r.sandbox.to),
		"plan %s ran its command %s outside its lease %s", r.id, r.sandbox, r.held)
}

// assertNoOverlap checks that no two plans of runs whose workspaces are
// the same or nested held their leases or ran their commands at the
// same moment, and returns how many pairs in folders apart ran their
// commands side by side.
func assertNoOverlap(t *testing.T, runs []*burstRun) (apart int) {
	t.Helper()
	for i, a := range runs {
		for _, b := range runs[i+1:] {
			if !plan.WorkspacesOverlap(a.ws, b.ws) {
				apart += btoi(a.sandbox.overlaps(b.sandbox))
				continue
			}
			assert.False(t, a.sandbox.overlaps(b.sandbox), "%s on %q ran %s while %s on %q ran %s",
				a.id, a.ws, a.sandbox, b.id, b.ws, b.sandbox)
			assert.False(t, a.held.overlaps(b.held), "%s on %q held %s while %s on %q held %s",
				a.id, a.ws, a.held, b.id, b.ws, b.held)
		}
	}
	return apart
}

// mostAtOnce returns the most leases of runs held at one moment.
func mostAtOnce(runs []*burstRun) int {
	type edge struct {
		at    time.Time
		delta int
	}
	var edges []edge
	for _, r := range runs {
		if !r.held.from.IsZero() {
			edges = append(edges, edge{r.held.from, 1}, edge{r.held.to, -1})
		}
	}
	// Ends before starts at one moment: touching leases are not at once.
	sort.Slice(edges, func(i, j int) bool {
		if edges[i].at.Equal(edges[j].at) {
			return edges[i].delta < edges[j].delta
		}
		return edges[i].at.Before(edges[j].at)
	})
	most, now := 0, 0
	for _, e := range edges {
		now += e.delta
		most = max(most, now)
	}
	return most
}

// btoi is 1 for true.
func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}
