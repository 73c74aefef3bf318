package workflows

import (
	"fmt"
	"slices"
	"strings"

	"go.temporal.io/sdk/workflow"

	"github.com/planmode/planmode/activities"
	"github.com/planmode/planmode/plan"
	"github.com/planmode/planmode/signals"
)

// files tracks the plan's files while steps run (Manifest of the
// executor's state, which it alone writes once execution started). One step
// at a time changes them in place: each of its tool calls starts from
// the plan's manifest and hands back the next. A step that starts while
// another works in place works in a private copy from the manifest it
// started on, and its changes merge into the plan's when its try ends,
// three ways. A clash leaves the plan's files as they were and the step
// runs again on them, in place, once and without counting against its
// retries; only a step that called something outside the workspace that
// is not read-only (it would call it again) fails instead, its clashing
// changes kept in a manifest of their own. A tool step whose tool only
// reads needs neither: it reads the plan's folder, as steps side by side
// always could. Merges and the in-place step's calls take turns (mu), so
// that neither builds on files the other is replacing. Nothing here is
// carried over: continue-as-new happens with no step running.
type files struct {
	st  *signals.ExecutionState
	run interface{ noteError(msg string) }
	// workspace is the plan's folder.
	workspace string
	inPlace   string // the step working in place, if any
	copies    map[string]*stepCopy
	// waiting counts the re-runs that wait to work in place: steps that
	// start meanwhile take copies, so that the re-runs come first.
	waiting int
	// outside names, per step, a call of its current try that reached
	// outside the workspace and was not read-only.
	outside map[string]string
	mu      workflow.Mutex
}

// stepCopy is a step's private copy: the manifest it started from and
// the one its last change left.
type stepCopy struct{ base, current string }

// begin starts a try of step: in place, in a copy of its own when another
// step works in place, or, for a tool step that only reads, in neither.
// A try after a clash (inPlace) waits until it can work in place, so that
// no step beside it can clash with it again.
func (f *files) begin(ctx workflow.Context, step plan.Step, inPlace bool) error {
	id := step.ID
	delete(f.outside, id)
	if step.Action == plan.ActionTool && step.Config.Tool != nil && slices.Contains(plan.ReadOnlyTools(), step.Config.Tool.Name) {
		return nil
	}
	if inPlace && f.st.Manifest != "" {
		f.waiting++
		err := workflow.Await(ctx, func() bool { return f.inPlace == "" || f.inPlace == id })
		f.waiting--
		if err != nil {
			return err
		}
		f.inPlace = id
		return nil
	}
	if f.inPlace == id || f.st.Manifest == "" || f.inPlace == "" && f.waiting == 0 {
		f.inPlace = id
		return nil
	}
	if f.copies == nil {
		f.copies = map[string]*stepCopy{}
	}
	f.copies[id] = &stepCopy{base: f.st.Manifest, current: f.st.Manifest}
	return nil
}

// reachedOutside notes that step id's current try made call, which
// reached outside the workspace and was not read-only: running the try
// again would repeat it.
func (f *files) reachedOutside(id, call string) {
	if f.outside == nil {
		f.outside = map[string]string{}
	}
	if _, ok := f.outside[id]; !ok {
		f.outside[id] = call
	}
}

// ref is what a call of step id works on.
func (f *files) ref(id string) activities.FilesRef {
	if c, ok := f.copies[id]; ok {
		return activities.FilesRef{Manifest: c.current, Copy: id}
	}
	return activities.FilesRef{Manifest: f.st.Manifest}
}

// call runs fn, a call of step id that may change files, in turn with
// the merges when the step works in place.
func (f *files) call(ctx workflow.Context, id string, fn func() error) error {
	if _, copied := f.copies[id]; copied || f.inPlace != id || f.st.Manifest == "" {
		return fn()
	}
	if err := f.lock(ctx); err != nil {
		return err
	}
	defer f.mu.Unlock()
	return fn()
}

// lock takes the turn of merges and in-place calls.
func (f *files) lock(ctx workflow.Context) error {
	if f.mu == nil {
		f.mu = workflow.NewMutex(ctx)
	}
	return f.mu.Lock(ctx)
}

// changed records the manifest a call of step id left.
func (f *files) changed(id, manifest string) {
	if manifest == "" {
		return
	}
	if c, ok := f.copies[id]; ok {
		c.current = manifest
		return
	}
	f.st.Manifest = manifest
}

// land ends try attempt of step: a copy's changes merge into the
// plan's files (fast-forward when nothing merged since it began), and
// res names the plan's files as the try left them. A clash fails the try
// and is returned: when rerun allows and the try reached nothing outside
// the workspace, the plan's files stay as they were for the step to run
// again (Clash.Rerun); otherwise they take the merge, which keeps the
// other step's side of each clash, and the step's own stay in its
// manifest (res.ConflictManifest).
func (f *files) land(ctx workflow.Context, step plan.Step, attempt int, rerun bool, res *plan.StepResult) *plan.Clash {
	if f.inPlace == step.ID {
		f.inPlace = ""
	}
	c, ok := f.copies[step.ID]
	delete(f.copies, step.ID)
	var clash *plan.Clash
	var merged string
	if ok && c.current != c.base {
		clash, merged = f.merge(ctx, step, c, res)
	}
	if clash != nil {
		clash.Attempt = attempt
		switch call, outside := f.outside[step.ID]; {
		case outside:
			clash.Why = fmt.Sprintf("it called %s, outside the workspace and not read-only: running it again would repeat that call", call)
		case !rerun:
			clash.Why = "it ran again on the merged files once already"
		default:
			clash.Rerun = true
		}
		f.conflict(clash, merged, res)
	}
	delete(f.outside, step.ID)
	res.Manifest = f.st.Manifest
	return clash
}

// merge merges a copy into the plan's files, one merge at a time, and
// returns the clash, if any, with the merged manifest: the plan's files
// take that only once land decides the step will not run again.
func (f *files) merge(ctx workflow.Context, step plan.Step, c *stepCopy, res *plan.StepResult) (*plan.Clash, string) {
	if err := f.lock(ctx); err != nil {
		res.Success, res.Error = false, fmt.Sprintf("merge the files of step %s: %v", step.ID, err)
		res.ConflictManifest = c.current
		return nil, ""
	}
	defer f.mu.Unlock()
	if f.st.Manifest == c.base {
		f.st.Manifest = c.current
		return nil, ""
	}
	in := activities.MergeInput{PlanID: f.st.Plan.ID, Workspace: f.workspace, StepID: step.ID,
		Base: c.base, Ours: f.st.Manifest, Theirs: c.current}
	out, err := call(ownPriority(heartbeatCtx(ctx, toolStartToClose, fmt.Sprintf("merge the files of step %d", step.Number))),
		a.MergeWorkspace, in)
	if err != nil {
		res.Success = false
		res.Error = fmt.Sprintf("merge the files of step %s: %v", step.ID, err)
		res.ConflictManifest = c.current
		return nil, ""
	}
	if len(out.Conflicts) == 0 {
		f.st.Manifest = out.Manifest
		return nil, ""
	}
	return &plan.Clash{At: workflow.Now(ctx), Paths: out.Conflicts, More: out.ConflictsMore, Manifest: c.current}, out.Manifest
}

// conflict fails res for clash: a step that runs again keeps the plan's
// files as they were; one that does not leaves them merged (the other
// step's side kept) and names its own files' manifest.
func (f *files) conflict(clash *plan.Clash, merged string, res *plan.StepResult) {
	list := strings.Join(clash.Paths, ", ")
	if clash.More > 0 {
		list += fmt.Sprintf(" and %d more", clash.More)
	}
	res.Success = false
	if clash.Rerun {
		res.Error = fmt.Sprintf("clash: this step and a step that ran beside it changed the same files in clashing "+
			"ways: %s. The plan's files are as the other step left them; this try's files are kept in manifest %s, "+
			"and the step runs again on the plan's files", list, clash.Manifest)
		return
	}
	f.st.Manifest = merged
	res.Conflicts, res.ConflictManifest = clash.Paths, clash.Manifest
	res.FilesChanged = slices.DeleteFunc(slices.Clone(res.FilesChanged), func(c plan.FileChange) bool {
		return slices.Contains(clash.Paths, c.Path)
	})
	res.Error = fmt.Sprintf("conflict: this step and a step that ran beside it changed the same files in clashing "+
		"ways: %s. The plan's files keep the other step's changes; this step's own are kept in manifest %s. "+
		"It was not run again: %s", list, clash.Manifest, clash.Why)
}

// leave brings the plan's folder to the files the plan leaves (merges
// change only the store), so that the workspace holds them when the plan
// ends. A failure is noted: the files are in the store, and a rollback
// or a fork reaches them.
func (f *files) leave(ctx workflow.Context) {
	if f.st.Manifest == "" {
		return
	}
	in := activities.RestoreInput{SnapshotID: f.st.Manifest, Workspace: f.workspace, IfMoved: true}
	if _, err := restoreWorkspace(ctx, in, "bring the workspace to the plan's files"); err != nil {
		f.run.noteError(fmt.Sprintf("the workspace folder was not brought to the plan's files %s: %v", f.st.Manifest, err))
	}
}

// restore restores the workspace to target, a snapshot or a manifest
// (rollback), and makes it the plan's files, in turn with the merges and
// the in-place calls.
func (f *files) restore(ctx workflow.Context, target string) (activities.RestoreOutput, error) {
	if f.st.Manifest != "" {
		if err := f.lock(ctx); err != nil {
			return activities.RestoreOutput{}, err
		}
		defer f.mu.Unlock()
	}
	in := activities.RestoreInput{SnapshotID: target, Workspace: f.workspace}
	out, err := restoreWorkspace(ctx, in, "rollback workspace")
	if err != nil {
		return out, fmt.Errorf("rollback: %w", err)
	}
	if f.st.Manifest != "" {
		f.st.Manifest = target
	}
	return out, nil
}
