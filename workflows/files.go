package workflows

import (
	"fmt"
	"slices"
	"strings"

	"go.temporal.io/sdk/workflow"

	"github.com/planmode/planmode/activities"
	"github.com/planmode/planmode/plan"
)

// files tracks the plan's files while steps run (st.Manifest). One step
// at a time changes them in place: each of its tool calls starts from
// the plan's manifest and hands back the next. A step that starts while
// another works in place works in a private copy from the manifest it
// started on, and its changes merge into the plan's when its try ends,
// three ways, clashes failing it with the paths named. A tool step whose
// tool only reads needs neither: it reads the plan's folder, as steps
// side by side always could. Merges and the in-place step's calls take
// turns (mu), so that neither builds on files the other is replacing.
// Nothing here is carried over: continue-as-new happens with no step
// running.
type files struct {
	r       *run
	inPlace string // the step working in place, if any
	copies  map[string]*stepCopy
	mu      workflow.Mutex
}

// stepCopy is a step's private copy: the manifest it started from and
// the one its last change left.
type stepCopy struct{ base, current string }

// begin starts a try of step: in place, in a copy of its own when another
// step works in place, or, for a tool step that only reads, in neither.
func (f *files) begin(step plan.Step) {
	id := step.ID
	if step.Action == plan.ActionTool && step.Config.Tool != nil && slices.Contains(plan.ReadOnlyTools(), step.Config.Tool.Name) {
		return
	}
	if f.inPlace == "" || f.inPlace == id || f.r.st.Manifest == "" {
		f.inPlace = id
		return
	}
	if f.copies == nil {
		f.copies = map[string]*stepCopy{}
	}
	f.copies[id] = &stepCopy{base: f.r.st.Manifest, current: f.r.st.Manifest}
}

// ref is what a call of step id works on.
func (f *files) ref(id string) activities.FilesRef {
	if c, ok := f.copies[id]; ok {
		return activities.FilesRef{Manifest: c.current, Copy: id}
	}
	return activities.FilesRef{Manifest: f.r.st.Manifest}
}

// call runs fn, a call of step id that may change files, in turn with
// the merges when the step works in place.
func (f *files) call(ctx workflow.Context, id string, fn func() error) error {
	if _, copied := f.copies[id]; copied || f.inPlace != id || f.r.st.Manifest == "" {
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
	f.r.st.Manifest = manifest
}

// settle ends a try of step: a copy's changes merge into the plan's files
// (fast-forward when nothing merged since it began), and res names the
// plan's files as the try left them. A clash fails the try: the plan's
// files keep what was merged before, the step's own stay in its manifest
// (res.ConflictManifest), and a retry runs on the merged files.
func (f *files) settle(ctx workflow.Context, step plan.Step, res *plan.StepResult) {
	if f.inPlace == step.ID {
		f.inPlace = ""
	}
	c, ok := f.copies[step.ID]
	delete(f.copies, step.ID)
	if ok && c.current != c.base {
		f.merge(ctx, step, c, res)
	}
	res.Manifest = f.r.st.Manifest
}

// merge merges a copy into the plan's files, one merge at a time.
func (f *files) merge(ctx workflow.Context, step plan.Step, c *stepCopy, res *plan.StepResult) {
	r := f.r
	if err := f.lock(ctx); err != nil {
		res.Success, res.Error = false, fmt.Sprintf("merge the files of step %s: %v", step.ID, err)
		res.ConflictManifest = c.current
		return
	}
	defer f.mu.Unlock()
	if r.st.Manifest == c.base {
		r.st.Manifest = c.current
		return
	}
	in := activities.MergeInput{PlanID: r.st.Plan.ID, Workspace: r.req.Workspace, StepID: step.ID,
		Base: c.base, Ours: r.st.Manifest, Theirs: c.current}
	out, err := call(ownPriority(heartbeatCtx(ctx, toolStartToClose, fmt.Sprintf("merge the files of step %d", step.Number))),
		a.MergeWorkspace, in)
	if err != nil {
		res.Success = false
		res.Error = fmt.Sprintf("merge the files of step %s: %v", step.ID, err)
		res.ConflictManifest = c.current
		return
	}
	r.st.Manifest = out.Manifest
	if len(out.Conflicts) == 0 {
		return
	}
	list := strings.Join(out.Conflicts, ", ")
	if out.ConflictsMore > 0 {
		list += fmt.Sprintf(" and %d more", out.ConflictsMore)
	}
	res.Success = false
	res.Conflicts, res.ConflictManifest = out.Conflicts, c.current
	res.Error = fmt.Sprintf("conflict: this step and a step that ran beside it changed the same files in clashing "+
		"ways: %s. The plan's files keep the other step's changes; this step's own are kept in manifest %s. "+
		"A retry runs on the merged files", list, c.current)
}

// leave brings the plan's folder to the files the plan leaves (merges
// change only the store), so that the workspace holds them when the plan
// ends. A failure is noted: the files are in the store, and a rollback
// or a fork reaches them.
func (f *files) leave(ctx workflow.Context) {
	r := f.r
	if r.st.Manifest == "" {
		return
	}
	in := activities.RestoreInput{SnapshotID: r.st.Manifest, Workspace: r.req.Workspace, IfMoved: true}
	if _, err := restoreWorkspace(ctx, in, "bring the workspace to the plan's files"); err != nil {
		r.noteError(fmt.Sprintf("the workspace folder was not brought to the plan's files %s: %v", r.st.Manifest, err))
	}
}
