package testsuite

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	openai "github.com/sashabaranov/go-openai"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.temporal.io/api/serviceerror"
	"go.temporal.io/api/workflowservice/v1"
	sdkworker "go.temporal.io/sdk/worker"

	"github.com/planmode/planmode/activities"
	"github.com/planmode/planmode/internal/config"
	"github.com/planmode/planmode/internal/devserver"
	"github.com/planmode/planmode/llm/offline"
	"github.com/planmode/planmode/llm/reply"
	"github.com/planmode/planmode/plan"
	"github.com/planmode/planmode/planclient"
	"github.com/planmode/planmode/signals"
	"github.com/planmode/planmode/starter/cli"
)

// exampleWorkspace is the folder under the worker's workspace root that
// the examples' plans work in (README's `--workspace ./shop`).
const exampleWorkspace = "shop"

// confirmGoal is the goal of the plan that waits for a skip confirmation:
// after each step of a plan for it, the example worker's model proposes to
// skip the next one.
const confirmGoal = "Tidy the cart package"

// remainingStep finds the first step the reflect prompt lists as not done.
var remainingStep = regexp.MustCompile(`(?m)^Steps not done yet[^\n]*:\n- (\S+)`)

// askToSkip answers the reflect phase of plans for confirmGoal with a skip
// of the next step, with a confidence that a complete-mode run asks a
// person about; next answers everything else.
func askToSkip(next offline.Brain) offline.Brain {
	return offline.BrainFunc(func(phase string, req openai.ChatCompletionRequest) offline.Reply {
		if phase != activities.PhaseReflect {
			return next.Reply(phase, req)
		}
		var text strings.Builder
		for _, m := range req.Messages {
			text.WriteString(m.Content + "\n")
		}
		m := remainingStep.FindStringSubmatch(text.String())
		if m == nil || !strings.Contains(text.String(), confirmGoal) {
			return next.Reply(phase, req)
		}
		return offline.JSONReply(reply.Reflect{Decision: plan.DecisionSkip, StepIDs: []string{m[1]},
			Confidence: 0.6, Reason: "the tests already cover it"})
	})
}

// fixture is the state of the plan an example works on.
type fixture string

// Fixtures.
const (
	noPlan                fixture = "no plan (the id is free)"
	awaitingSelection     fixture = "a plan waiting for a selection"
	awaitingClarification fixture = "a plan waiting for answers to its questions"
	awaitingConfirmation  fixture = "a plan that has run a step and waits for the confirmation of skip-1"
	heldBeforeExecution   fixture = "a selected plan paused before its first step"
	completedPlan         fixture = "a completed plan"
	parsedOnly            fixture = "a service command: the example must parse, its own tests run it"
)

// commandFixtures says what plan each command's examples need. A command
// that is not listed fails the test: say here what its examples need.
var commandFixtures = map[string]fixture{
	"start": noPlan, "list": noPlan, "version": noPlan,
	"show": awaitingSelection, "watch": awaitingSelection, "select": awaitingSelection,
	"refine": awaitingSelection, "pause": awaitingSelection, "cancel": awaitingSelection,
	"answer":       awaitingClarification,
	"confirm-skip": awaitingConfirmation, "rollback": awaitingConfirmation,
	"edit": heldBeforeExecution, "resume": heldBeforeExecution,
	"graph":  heldBeforeExecution,
	"result": completedPlan, "export": completedPlan,
	// Commands that serve or probe a service are not run here: their own
	// tests run them (starter/cli codec and healthcheck tests, worker's
	// metrics test, serve's tests and e2e_serve_test.go). Their examples
	// must still parse.
	"codec-server": parsedOnly, "healthcheck": parsedOnly, "serve": parsedOnly,
	"approvals": noPlan,
	// A gated call or a plan paused on its budget, with the request ids the
	// examples name, is the approval tests' to set up: they run approve
	// from the CLI (e2e_approval_test.go); deny and raise-budget are
	// exercised through the same client. Their examples must parse.
	"approve": parsedOnly, "deny": parsedOnly, "raise-budget": parsedOnly,
	"fork": completedPlan,
	// gc removes what a whole store no longer needs: TestGCRemovesOnlyWhatNoPlanNeeds
	// runs it on a store of its own. Its examples must parse.
	"gc": parsedOnly,
	// output reads a kept output by its reference, which only a plan that
	// printed more than its head has: TestKeptOutputsAreReadFromTheStore.
	"output": parsedOnly,
}

// flagFixtures overrides commandFixtures for examples with a flag: watch
// --follow prints the plan's log until the plan ends, so its examples
// follow a completed plan.
var flagFixtures = map[string]map[string]fixture{"watch": {"--follow": completedPlan}}

// fixtureFiles are files examples name without spelling them out.
var fixtureFiles = []docFile{{name: "chat.json", content: `[{"role": "user", "content": "Can the cart take a discount?"},
 {"role": "assistant", "content": "Yes: a percentage off the total, applied before tax."}]`}}

// exampleRig is a worker with the offline model (askToSkip) whose
// workspace root holds the demo workspace as exampleWorkspace.
type exampleRig struct {
	pw *planWorker
	pc *planclient.Client
}

func startExampleRig(t *testing.T) *exampleRig {
	t.Helper()
	srv := StartDevServer(t)
	root := t.TempDir()
	ws := filepath.Join(root, exampleWorkspace)
	require.NoError(t, devserver.CopyDemoWorkspace(ws))
	llm := offline.New(offline.WithBrain(askToSkip(offline.NewOfflineBrain())))
	t.Cleanup(llm.Close)
	pw := &planWorker{srv: srv, queue: TaskQueue(t), root: root, workspace: ws, llm: llm}
	w := sdkworker.New(srv.Client, pw.queue, sdkworker.Options{})
	registerOffline(w, llm, root, t.TempDir(), config.Codec{})
	require.NoError(t, w.Start())
	t.Cleanup(w.Stop)
	rig := &exampleRig{pw: pw, pc: planclient.New(srv.Client, planclient.WithTaskQueue(pw.queue))}
	t.Cleanup(func() { rig.terminateAll(t) })
	return rig
}

// terminate ends the open run of id, if there is one, so that a fixture
// can start afresh under the id.
func (r *exampleRig) terminate(t *testing.T, id string) {
	t.Helper()
	err := r.pw.srv.Client.TerminateWorkflow(context.Background(), id, "", "the next example needs the id")
	var notFound *serviceerror.NotFound
	if err != nil && !errors.As(err, &notFound) {
		require.NoError(t, err, "terminate %s", id)
	}
}

// terminateAll ends the runs the examples left open on the rig's queue,
// so that they do not wait on the shared server for a worker that is gone.
func (r *exampleRig) terminateAll(t *testing.T) {
	resp, err := r.pw.srv.Client.ListWorkflow(context.Background(), &workflowservice.ListWorkflowExecutionsRequest{
		Namespace: r.pw.srv.Namespace,
		Query:     fmt.Sprintf("TaskQueue = '%s' AND ExecutionStatus = 'Running'", r.pw.queue),
	})
	if err != nil {
		t.Logf("list the runs left open: %v", err)
		return
	}
	for _, e := range resp.GetExecutions() {
		r.terminate(t, e.GetExecution().GetWorkflowId())
	}
}

// await polls cond until it holds.
func (r *exampleRig) await(t *testing.T, what string, cond func(ctx context.Context) (bool, error)) {
	t.Helper()
	require.Eventually(t, func() bool {
		ok, err := cond(context.Background())
		return err == nil && ok
	}, loadedWait, 50*time.Millisecond, "the fixture is ready: %s", what)
}

// prepare puts a fresh plan with id in state f.
func (r *exampleRig) prepare(t *testing.T, f fixture, id string) {
	t.Helper()
	if id != "" {
		r.terminate(t, id)
	}
	ctx, cancel := testContext(t)
	defer cancel()
	req := signals.StartRequest{Goal: "Add a percentage discount to the cart total", Workspace: r.fixtureWorkspace(t, id)}
	switch f {
	case noPlan:
	case awaitingSelection:
		_, err := r.pc.StartAndGetOptions(ctx, id, req)
		require.NoError(t, err)
	case awaitingClarification:
		req.Goal, req.Clarify.AskQuestions = "Add cart discounts", true // short goals get questions
		_, err := r.pc.Start(ctx, id, req)
		require.NoError(t, err)
		r.await(t, string(f), func(ctx context.Context) (bool, error) {
			p, err := r.pc.Pending(ctx, id)
			return p.Clarification != nil, err
		})
	case heldBeforeExecution, awaitingConfirmation:
		if f == awaitingConfirmation {
			req.Goal, req.Execution.Mode = confirmGoal, signals.ExecComplete // complete mode asks about every skip
		}
		_, err := r.pc.StartAndGetOptions(ctx, id, req)
		require.NoError(t, err)
		if f == heldBeforeExecution {
			_, err = r.pc.Pause(ctx, id, signals.ControlRequest{Reason: "fixture"})
			require.NoError(t, err)
		}
		_, err = r.pc.Select(ctx, id, signals.SelectOptionRequest{Rank: 1})
		require.NoError(t, err)
		r.await(t, string(f), func(ctx context.Context) (bool, error) {
			p, err := r.pc.Pending(ctx, id)
			if f == heldBeforeExecution {
				return p.Awaiting == signals.AwaitingResume, err
			}
			return len(p.SkipConfirmations) > 0, err
		})
	case completedPlan:
		req.Selection.Mode = signals.SelectAuto
		_, err := r.pc.Start(ctx, id, req)
		require.NoError(t, err)
		res, err := r.pc.Result(ctx, id)
		require.NoError(t, err)
		require.Equal(t, signals.StatusCompleted, res.Status, res.Error)
	default:
		t.Fatalf("unknown fixture %q", f)
	}
}

// fixtureWorkspace returns the folder the fixture plan id works in: a
// copy of the demo workspace of its own under the root, made once. Two
// open plans never share a workspace, and the plans the examples start
// work in exampleWorkspace, or in folders of their own.
func (r *exampleRig) fixtureWorkspace(t *testing.T, id string) string {
	t.Helper()
	name := path.Join("fixtures", plan.DefaultWorkspace(id))
	dir := filepath.Join(r.pw.root, filepath.FromSlash(name))
	if _, err := os.Stat(dir); errors.Is(err, fs.ErrNotExist) {
		require.NoError(t, devserver.CopyDemoWorkspace(dir))
	}
	return name
}

// followUps check what a command's example did beyond answering: an
// edit must add steps that run.
var followUps = map[string]func(r *exampleRig, t *testing.T, id string){
	"edit": (*exampleRig).runsEveryStep,
}

// runsEveryStep resumes plan id and requires every step of it, the edited
// ones included, to complete.
func (r *exampleRig) runsEveryStep(t *testing.T, id string) {
	ctx, cancel := testContext(t)
	defer cancel()
	_, err := r.pc.Resume(ctx, id, signals.ControlRequest{})
	require.NoError(t, err)
	res, err := r.pc.Result(ctx, id)
	require.NoError(t, err)
	require.Equal(t, signals.StatusCompleted, res.Status, res.Error)
	require.NotNil(t, res.Plan)
	for _, s := range res.Plan.Steps {
		out := ""
		if s.Result != nil {
			out = s.Result.Error + " " + s.Result.Output
		}
		assert.Equal(t, plan.StepCompleted, s.Status, "step %s %q: %s", s.ID, s.Title, out)
	}
}

// planID is the plan an example's command works on: start's --id, or the
// first argument of a command that takes a plan.
func planID(words []string) string {
	args := words[1:]
	switch {
	case len(args) == 0:
		return ""
	case args[0] == "start":
		for i, a := range args {
			if a == "--id" && i+1 < len(args) {
				return args[i+1]
			}
			if v, ok := strings.CutPrefix(a, "--id="); ok {
				return v
			}
		}
		return ""
	case len(args) > 1 && !strings.HasPrefix(args[1], "-") && commandFixtures[args[0]] != noPlan:
		return args[1]
	}
	return ""
}

// atTerminal reports whether an example has a person choose at the
// terminal: select with neither an option id nor --rank. The test types 1.
func atTerminal(args []string) bool {
	return len(args) == 2 && args[0] == "select"
}

// run prepares the plan ex needs and runs each of its commands through
// cli.Run, as sh would: output redirected with ">" lands in the file, and
// output piped to Graphviz must be a digraph. Every example must succeed;
// none is expected to fail, so a failure means the example or the CLI is
// wrong.
func (r *exampleRig) run(t *testing.T, ex example) {
	t.Helper()
	cmds, err := parseShell(ex.line)
	require.NoError(t, err)
	require.NotEmpty(t, cmds)
	first := cmds[0].words
	f := noPlan
	if len(first) > 1 && !strings.HasPrefix(first[1], "-") {
		var ok bool
		f, ok = commandFixtures[first[1]]
		require.True(t, ok, "no fixture for `planmode %s`: say in commandFixtures what plan its examples need", first[1])
		for flag, ff := range flagFixtures[first[1]] {
			if slices.Contains(first, flag) {
				f = ff
			}
		}
	}
	if f == parsedOnly {
		cmd, rest, err := cli.CommandTree().Find(first[1:])
		require.NoError(t, err, "%s: %q names a command", ex.source, ex.line)
		require.NoError(t, cmd.ParseFlags(rest), "%s: %q parses", ex.source, ex.line)
		require.NoError(t, cmd.ValidateArgs(cmd.Flags().Args()), "%s: %q has the arguments it needs", ex.source, ex.line)
		return
	}
	id := planID(first)
	r.prepare(t, f, id)
	for _, c := range cmds {
		require.Equal(t, "planmode", c.words[0], "%s: %q may run only planmode", ex.source, ex.line)
		args := c.words[1:]
		stdin := ""
		if atTerminal(args) {
			stdin = "1\n"
		}
		res := r.pw.cliWith(t, stdin != "", stdin, args...)
		require.Equal(t, 0, res.code, "%s: `%s` on %s\nstdout: %s\nstderr: %s", ex.source, ex.line, f, res.out, res.errOut)
		assert.NotEmpty(t, res.out, "%s: `%s` says something", ex.source, ex.line)
		switch {
		case len(c.pipe) > 0:
			require.Equal(t, "dot", c.pipe[0], "%s: `%s` pipes into a program the test does not know", ex.source, ex.line)
			assert.True(t, strings.HasPrefix(res.out, "digraph"), "Graphviz reads a digraph: %s", res.out)
		case c.stdout != "":
			require.NoError(t, os.WriteFile(c.stdout, []byte(res.out), 0o600))
		}
	}
	if check := followUps[first[1]]; check != nil {
		check(r, t, id)
	}
}

// writeFiles writes the files the examples name into the current folder.
func writeFiles(t *testing.T, files []docFile) {
	t.Helper()
	for _, f := range files {
		require.NoError(t, os.WriteFile(f.name, []byte(f.content), 0o600))
	}
}

// TestHelpExamplesRun runs every example of every command's --help
// against a server, each on a fresh plan in the state it needs
// (commandFixtures), with the files the examples spell out.
func TestHelpExamplesRun(t *testing.T) {
	isolate(t)
	examples, files := helpExamples(cli.CommandTree())
	require.NotEmpty(t, examples)
	require.NotEmpty(t, files, "the edit and answer examples spell out their files")
	rig := startExampleRig(t)
	writeFiles(t, append(files, fixtureFiles...))
	for _, ex := range examples {
		t.Run(ex.line, func(t *testing.T) { rig.run(t, ex) })
	}
}

// TestDocExamplesRun runs the planmode lines of the shell blocks of the
// README and docs/clients.md the same way. The files they name are those
// the --help examples spell out.
func TestDocExamplesRun(t *testing.T) {
	isolate(t)
	_, files := helpExamples(cli.CommandTree())
	var examples []example
	for _, doc := range []string{"README.md", "docs/clients.md"} {
		ex := docExamples(t, doc)
		require.NotEmpty(t, ex, "%s shows planmode commands", doc)
		examples = append(examples, ex...)
	}
	rig := startExampleRig(t)
	writeFiles(t, append(files, fixtureFiles...))
	for _, ex := range examples {
		t.Run(ex.source+": "+ex.line, func(t *testing.T) { rig.run(t, ex) })
	}
}
