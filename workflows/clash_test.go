package workflows

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/mock"
	"github.com/stretchr/testify/require"

	"github.com/planmode/planmode/activities"
	"github.com/planmode/planmode/plan"
	"github.com/planmode/planmode/signals"
)

// fileModel is a small content-addressed store of whole folders, for the
// activities that record, change and merge a plan's files: a manifest id
// names a map of path to content.
type fileModel struct {
	mu    sync.Mutex
	n     int
	files map[string]map[string]string
	// merges counts MergeWorkspace calls.
	merges int
}

func newFileModel(initial map[string]string) *fileModel {
	return &fileModel{files: map[string]map[string]string{"m0": initial}}
}

// put stores a folder and returns its id.
func (m *fileModel) put(f map[string]string) string {
	m.n++
	id := fmt.Sprintf("m%d", m.n)
	m.files[id] = f
	return id
}

// get returns a copy of folder id.
func (m *fileModel) get(id string) map[string]string {
	m.mu.Lock()
	defer m.mu.Unlock()
	return cloneFolder(m.files[id])
}

func cloneFolder(f map[string]string) map[string]string {
	out := make(map[string]string, len(f))
	for k, v := range f {
		out[k] = v
	}
	return out
}

// edit is what the fake run_command does to the files: append a line to
// one file, set another's content.
type edit struct {
	Append  string `json:"append,omitempty"`
	Line    string `json:"line,omitempty"`
	Write   string `json:"write,omitempty"`
	Content string `json:"content,omitempty"`
}

// runTool applies the call's edit to the folder it names and hands back
// the new manifest, as RunTool does.
func (m *fileModel) runTool(in activities.ToolInput) (activities.ToolOutput, error) {
	var e edit
	if err := json.Unmarshal([]byte(in.Call.Arguments), &e); err != nil {
		return activities.ToolOutput{}, err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	f := cloneFolder(m.files[in.Files.Manifest])
	var changed []plan.FileChange
	if e.Append != "" {
		f[e.Append] += e.Line + "\n"
		changed = append(changed, plan.FileChange{Path: e.Append, Op: plan.FileModified, LinesAdded: 1})
	}
	if e.Write != "" {
		f[e.Write] = e.Content
		changed = append(changed, plan.FileChange{Path: e.Write, Op: plan.FileModified, LinesAdded: 1})
	}
	return activities.ToolOutput{Success: true, Output: "ran", Manifest: m.put(f), FilesChanged: changed, CommandsRun: 1}, nil
}

// merge merges three ways, file by file: one side's change is taken,
// lines both appended are kept ours first, anything else both changed
// is a conflict that keeps ours.
func (m *fileModel) merge(in activities.MergeInput) (activities.MergeOutput, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.merges++
	base, ours, theirs := m.files[in.Base], m.files[in.Ours], m.files[in.Theirs]
	out := cloneFolder(ours)
	var conflicts []string
	for p, t := range theirs {
		b, o := base[p], ours[p]
		switch {
		case t == b || t == o:
		case o == b:
			out[p] = t
		case strings.HasPrefix(o, b) && strings.HasPrefix(t, b):
			out[p] = o + t[len(b):]
		default:
			conflicts = append(conflicts, p)
		}
	}
	slices.Sort(conflicts)
	return activities.MergeOutput{Manifest: m.put(out), Conflicts: conflicts}, nil
}

// withFiles registers the model's activities in h and starts the plan on
// folder m0.
func (h *harness) withFiles(m *fileModel) {
	h.f.snapshot = func(activities.SnapshotInput) (activities.SnapshotOutput, error) {
		return activities.SnapshotOutput{SnapshotID: "m0", Manifest: "m0", Files: len(m.get("m0"))}, nil
	}
	h.f.runTool = m.runTool
	h.env.OnActivity(a.MergeWorkspace, mock.Anything, mock.Anything).Return(
		func(_ context.Context, in activities.MergeInput) (activities.MergeOutput, error) { return m.merge(in) })
}

// editStep is a run_command step that applies e, after deps.
func editStep(id string, e edit, deps ...string) plan.Step {
	data, _ := json.Marshal(e)
	var params map[string]any
	_ = json.Unmarshal(data, &params)
	s := toolStep(id, plan.ToolRunCommand, params)
	s.DependsOn = deps
	if deps == nil {
		s.DependsOn = []string{}
	}
	return s
}

// sideBySideReq runs up to four steps at once in a workspace.
func sideBySideReq() signals.StartRequest {
	req := autoReq()
	req.Execution.Parallelism = 4
	req.Workspace = "/srv/repo"
	return req
}

// TestClashingStepsRunAgainOnTheMergedFiles starts three steps side by
// side after a first, each appending its line to one log and writing
// its own content to one file: the appends merge, the writes clash, and
// every clashing step runs again on the plan's files, in place, where no
// step beside it can clash with it. All complete, none spends a retry,
// the log holds every step's line once, and each clash is in the step's
// result with the manifest of its first try's files.
func TestClashingStepsRunAgainOnTheMergedFiles(t *testing.T) {
	h := newHarness(t)
	m := newFileModel(map[string]string{"sidefx.log": "", "z.txt": "base"})
	h.withFiles(m)
	steps := []plan.Step{editStep("s1", edit{Append: "sidefx.log", Line: "s1 end"})}
	for _, id := range []string{"m1", "m2", "m3"} {
		steps = append(steps, editStep(id, edit{Append: "sidefx.log", Line: id + " end", Write: "z.txt", Content: "from " + id}, "s1"))
	}
	h.f.onePlan(steps...)
	res := h.run(sideBySideReq())

	require.Equal(t, signals.StatusCompleted, res.Status, res.Error)
	assert.GreaterOrEqual(t, res.Metrics.MaxConcurrent, 2, "steps ran side by side")
	final := m.get(res.Manifest)
	log := final["sidefx.log"]
	for _, id := range []string{"s1", "m1", "m2", "m3"} {
		assert.Equal(t, 1, strings.Count(log, id+" end\n"), "%s's line once in %q", id, log)
	}
	reran := 0
	for _, s := range res.Plan.Steps {
		require.Equal(t, plan.StepCompleted, s.Status, "%s: %s", s.ID, s.Note)
		r := s.Result
		assert.Empty(t, r.Conflicts, s.ID)
		if len(r.Clashes) == 0 {
			assert.Equal(t, 1, r.Attempts, s.ID)
			continue
		}
		reran++
		require.Len(t, r.Clashes, 1, "%s runs again once, in place, and clashes no more", s.ID)
		c := r.Clashes[0]
		assert.True(t, c.Rerun, s.ID)
		assert.Equal(t, 1, c.Attempt)
		assert.Equal(t, []string{"z.txt"}, c.Paths)
		assert.Equal(t, "from "+s.ID, m.get(c.Manifest)["z.txt"], "the first try's own files are kept")
		assert.Equal(t, 2, r.Attempts, "%s: the re-run is a try of its own", s.ID)
		assert.Equal(t, 2, r.CommandsRun, s.ID)
	}
	assert.GreaterOrEqual(t, reran, 1, "two steps that started from the same files clashed")
	assert.NotEmpty(t, res.Plan.Steps[len(res.Plan.Steps)-1].Result.Manifest, "each step names the plan's files it left")
	assert.Contains(t, []string{"from m1", "from m2", "from m3"}, final["z.txt"])
	assert.Equal(t, 4+reran, res.Metrics.CommandsRun, "every try's command counted")
}

// TestAClashAfterACallOutsideTheWorkspaceFails has an agent step call an
// MCP tool that is not read-only and then clash with a step beside it:
// running it again would call the tool again, so it fails with the
// conflict named, its files in a manifest of their own, and the plan's
// files keep the other step's side and its disjoint changes.
func TestAClashAfterACallOutsideTheWorkspaceFails(t *testing.T) {
	h := newHarness(t)
	m := newFileModel(map[string]string{"z.txt": "base"})
	h.withFiles(m)
	const mcpTool = "mcp__x__push"
	h.f.tools = func() (signals.RecordedTools, error) {
		pol := signals.ApprovalPolicy{Rules: plan.ApprovalRules{{Match: mcpTool, Action: plan.ApprovalAllow}}}
		return signals.RecordedTools{Approval: pol.WithDefaults(signals.ApprovalPolicy{}), MCPDigest: "sha256:x",
			MCP: []signals.RecordedTool{{Name: mcpTool}}}, nil
	}
	agent := agentStep("a1", 4)
	agent.Config.Agent.Tools = []string{plan.ToolRunCommand, mcpTool}
	agent.DependsOn = []string{}
	h.f.onePlan(editStep("w1", edit{Write: "z.txt", Content: "from w1"}), agent)
	turnArgs, _ := json.Marshal(edit{Write: "z.txt", Content: "from a1", Append: "a1.log", Line: "a1"})
	h.f.agentTurn = func(in activities.AgentTurnInput) (activities.AgentTurnOutput, error) {
		switch in.Iteration {
		case 1:
			return activities.AgentTurnOutput{ToolCalls: []activities.ToolCall{{ID: "c1", Name: mcpTool, Arguments: `{}`}}}, nil
		case 2:
			return activities.AgentTurnOutput{ToolCalls: []activities.ToolCall{{ID: "c2", Name: plan.ToolRunCommand, Arguments: string(turnArgs)}}}, nil
		}
		return activities.AgentTurnOutput{Content: "done"}, nil
	}
	h.f.reflect = func(activities.ReflectInput) (plan.Reflection, error) {
		return plan.Reflection{Decision: plan.DecisionContinue}, nil
	}
	res := h.run(sideBySideReq())

	require.Equal(t, signals.StatusFailed, res.Status)
	var a1 *plan.Step
	for i := range res.Plan.Steps {
		if res.Plan.Steps[i].ID == "a1" {
			a1 = &res.Plan.Steps[i]
		}
	}
	require.NotNil(t, a1)
	require.Equal(t, plan.StepFailed, a1.Status)
	r := a1.Result
	assert.Equal(t, []string{"z.txt"}, r.Conflicts)
	require.Len(t, r.Clashes, 1)
	assert.False(t, r.Clashes[0].Rerun)
	assert.Contains(t, r.Clashes[0].Why, mcpTool)
	assert.Contains(t, r.Error, "It was not run again")
	assert.Equal(t, 1, r.Attempts)
	assert.Equal(t, "from a1", m.get(r.ConflictManifest)["z.txt"], "its own files are kept")
	final := m.get(res.Manifest)
	assert.Equal(t, "from w1", final["z.txt"], "the plan's files keep the other step's side")
	assert.Equal(t, "a1\n", final["a1.log"], "and take the failed step's disjoint changes")
	assert.Equal(t, []plan.FileChange{{Path: "a1.log", Op: plan.FileModified, LinesAdded: 1}}, r.FilesChanged,
		"the step's file metrics count what the plan's files hold")
	assert.Equal(t, 1, h.f.count("CallMCPTool"), "the MCP tool was called once")
}
