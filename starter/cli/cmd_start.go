package cli

import (
	"context"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/planmode/planmode/plan"
	"github.com/planmode/planmode/planclient"
	"github.com/planmode/planmode/signals"
)

// startFlags are the start command's flags, mapped onto a StartRequest by
// request.
type startFlags struct {
	requirements   []string
	constraints    []string
	priority       string
	workspace      string
	onBusy         string
	template       string
	options        int
	rankBy         []string
	selectMode     string
	selectTimeout  time.Duration
	onTimeout      string
	mode           string
	skipThreshold  float64
	confirmTimeout time.Duration
	onConfirm      string
	maxSteps       int
	maxIterations  int
	parallelism    int
	heartbeat      time.Duration
	askQuestions   bool
	maxTokens      int
	maxCost        float64
	systemPrompt   string
	webhook        string
	history        string
	plan           string
	deadline       string
	id             string
	watch          bool
}

func newStartCmd(d *deps) *cobra.Command {
	var f startFlags
	cmd := &cobra.Command{
		Use:   "start <goal>",
		Short: "Start a plan for a goal",
		Example: `  planmode start "Add JWT authentication" --requirement "email/password login" --options 3
  planmode start "Fix the flaky cart test" --select auto --mode efficient --watch
  planmode start "Add a discount" --workspace shop --on-busy wait   # wait while another plan works in shop
  planmode start "Migrate the orders table" --rank-by safety=2,speed=1
  planmode start "Do what we agreed on" --history chat.json
  planmode start "Look around the workspace" --plan plan.yaml   # run this plan at once, no options
  # plan.yaml (as planmode export prints it; steps in the format edit takes):
  # title: Look around
  # steps:
  #   - id: s1
  #     title: List the files
  #     action: tool
  #     config: {tool: {name: list_files, params: {path: .}}}`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			req, err := f.request(strings.Join(args, " "))
			if err != nil {
				return err
			}
			return start(cmd.Context(), d, req, f.id, f.watch)
		},
	}
	f.register(cmd.Flags())
	return cmd
}

// register adds the start flags to fl.
func (f *startFlags) register(fl *pflag.FlagSet) {
	fl.StringArrayVar(&f.requirements, "requirement", nil, "a requirement (repeatable)")
	fl.StringArrayVar(&f.constraints, "constraint", nil, "a constraint (repeatable)")
	fl.StringVar(&f.priority, "priority", "", "low, medium, high or critical (default medium)")
	fl.StringVar(&f.workspace, "workspace", "", "folder under the worker's workspace.root the plan works in "+
		"(default a folder of the plan's own there, named after its id)")
	fl.StringVar(&f.onBusy, "on-busy", "", "when another open plan holds the workspace: refuse or wait (default refuse)")
	fl.StringVar(&f.template, "template", "", "build the plan from this template instead of the model")
	fl.IntVar(&f.options, "options", 0, fmt.Sprintf("number of options, 1..%d (default %d)", signals.MaxOptionCount, signals.DefaultOptionCount))
	fl.StringSliceVar(&f.rankBy, "rank-by", nil, "rank options by weighted criteria, e.g. safety=2,speed=1 ("+
		criterionNames()+"; default the built-in score)")
	fl.StringVar(&f.selectMode, "select", "", "selection: manual or auto (default manual)")
	fl.DurationVar(&f.selectTimeout, "select-timeout", 0, "how long a manual selection waits (default for ever)")
	fl.StringVar(&f.onTimeout, "on-timeout", "", "when the selection times out: recommended or cancel (default recommended)")
	fl.StringVar(&f.mode, "mode", "", "execution: complete, balanced or efficient (default balanced)")
	fl.Float64Var(&f.skipThreshold, "skip-threshold", 0, "skip confidence threshold 0..1 (default 0.8)")
	fl.DurationVar(&f.confirmTimeout, "confirm-timeout", 0, "how long a skip confirmation waits (default for ever)")
	fl.StringVar(&f.onConfirm, "on-confirm-timeout", "", "when a skip confirmation times out: approve or deny (default deny)")
	fl.IntVar(&f.maxSteps, "max-steps", 0, fmt.Sprintf("most steps a plan may have, at most %d (default %d)",
		signals.MaxSteps, signals.DefaultMaxSteps))
	fl.IntVar(&f.maxIterations, "max-iterations", 0, fmt.Sprintf("most LLM turns an agent step may take, at most %d (default %d)",
		signals.MaxIterationsPerStep, signals.DefaultMaxIterationsPerStep))
	fl.IntVar(&f.parallelism, "parallelism", 0, fmt.Sprintf("steps run at once, at most %d (default %d)", signals.MaxParallelism, signals.DefaultParallelism))
	fl.DurationVar(&f.heartbeat, "heartbeat-timeout", 0, fmt.Sprintf(
		"how long a silent LLM or tool call runs before it is retried on another worker, at least %s (default %s)",
		signals.MinHeartbeatTimeout, signals.DefaultHeartbeatTimeout))
	fl.BoolVar(&f.askQuestions, "ask-questions", false, "let clarification ask questions and wait for answers")
	fl.IntVar(&f.maxTokens, "max-tokens", 0, "token budget (default none)")
	fl.Float64Var(&f.maxCost, "max-cost", 0, "cost budget in USD (default none)")
	fl.StringVar(&f.systemPrompt, "system-prompt", "", "extra system prompt for every phase")
	fl.StringVar(&f.webhook, "webhook", "", "URL that receives this plan's events (default the worker's notify.webhookURL)")
	fl.StringVar(&f.history, "history", "", `JSON file of the conversation to start from: [{"role":"user","content":"…"}, …]`)
	fl.StringVar(&f.plan, "plan", "", "JSON or YAML file of the plan to run at once, as planmode export prints it "+
		"(skips clarification, options and selection)")
	fl.StringVar(&f.deadline, "deadline", "", `end the plan at this time: a duration from the start ("2h") or an RFC 3339 time`)
	fl.StringVar(&f.id, "id", "", `workflow id (default "plan-" + a UUID)`)
	fl.BoolVar(&f.watch, "watch", false, "watch the plan after starting it")
}

// request maps the flags onto a StartRequest and validates it, bounds and
// size as JSON included, so that a request the workflow or the server
// would refuse is refused here before anything is dialled or started.
func (f startFlags) request(goal string) (planclient.Checked, error) {
	ranking, err := parseRanking(f.rankBy)
	if err != nil {
		return planclient.Checked{}, err
	}
	history, err := readHistory(f.history)
	if err != nil {
		return planclient.Checked{}, err
	}
	external, err := readPlan(f.plan)
	if err != nil {
		return planclient.Checked{}, err
	}
	req := signals.StartRequest{
		Goal:         strings.TrimSpace(goal),
		Requirements: f.requirements,
		Constraints:  f.constraints,
		Priority:     plan.Priority(f.priority),
		Workspace:    f.workspace,
		OnBusy:       signals.BusyPolicy(f.onBusy),
		Template:     f.template,
		OptionCount:  f.options,
		Selection: signals.SelectionPolicy{
			Mode:      signals.SelectionMode(f.selectMode),
			Timeout:   plan.Duration(f.selectTimeout),
			OnTimeout: signals.TimeoutOutcome(f.onTimeout),
		},
		Execution: signals.ExecutionPolicy{
			Mode:                    signals.ExecutionMode(f.mode),
			SkipConfidenceThreshold: f.skipThreshold,
			ConfirmTimeout:          plan.Duration(f.confirmTimeout),
			OnConfirmTimeout:        signals.TimeoutOutcome(f.onConfirm),
			MaxSteps:                f.maxSteps,
			MaxIterationsPerStep:    f.maxIterations,
			Parallelism:             f.parallelism,
			HeartbeatTimeout:        plan.Duration(f.heartbeat),
		},
		Clarify:      signals.ClarifyPolicy{AskQuestions: f.askQuestions},
		Budget:       signals.Budget{MaxTokens: f.maxTokens, MaxCostUSD: f.maxCost},
		Notify:       signals.NotifyPolicy{WebhookURL: f.webhook},
		Deadline:     signals.Deadline(f.deadline),
		SystemPrompt: f.systemPrompt,
		Ranking:      ranking,
		History:      history,
		Plan:         external,
	}
	switch req.Priority {
	case "", plan.PriorityLow, plan.PriorityMedium, plan.PriorityHigh, plan.PriorityCritical:
	default:
		return planclient.Checked{}, rejectf(fmt.Sprintf("--priority %q: want low, medium, high or critical", f.priority))
	}
	if f.selectTimeout < 0 || f.confirmTimeout < 0 || f.heartbeat < 0 {
		return planclient.Checked{}, rejectf("timeouts must not be negative")
	}
	checked, err := planclient.CheckStart(req)
	if err != nil {
		return checked, rejectf(err.Error())
	}
	return checked, nil
}

// parseRanking reads --rank-by's "name[=weight]" items (weight 1 when
// left out). Names are checked by the request's validation.
func parseRanking(items []string) ([]plan.Criterion, error) {
	var out []plan.Criterion
	for _, item := range items {
		if strings.TrimSpace(item) == "" {
			continue
		}
		name, weight, hasWeight := strings.Cut(strings.TrimSpace(item), "=")
		c := plan.Criterion{Name: plan.CriterionName(strings.ToLower(strings.TrimSpace(name))), Weight: 1}
		if hasWeight {
			w, err := strconv.ParseFloat(strings.TrimSpace(weight), 64)
			if err != nil || w <= 0 {
				return nil, rejectf(fmt.Sprintf("--rank-by %q: the weight must be a number above 0", item))
			}
			c.Weight = w
		}
		out = append(out, c)
	}
	return out, nil
}

// criterionNames is "speed, safety, …" for the flag's help.
func criterionNames() string {
	names := plan.CriterionNames()
	parts := make([]string, len(names))
	for i, n := range names {
		parts[i] = string(n)
	}
	return strings.Join(parts, ", ")
}

// start registers the search attributes if needed, starts the workflow
// through the contract's client (goal as static summary, request as static
// details, goal in the memo) and prints how to follow it, or, with watch
// and text output, watches it.
func start(ctx context.Context, d *deps, req planclient.Checked, id string, watch bool) error {
	pc, err := d.plans(ctx)
	if err != nil {
		return err
	}
	if err := signals.EnsureSearchAttributes(ctx, pc.Temporal(), d.cfg.Temporal.Namespace); err != nil {
		return err
	}
	run, err := pc.StartChecked(ctx, id, req)
	if err != nil {
		return err
	}
	started := startedPlan{WorkflowID: run.GetID(), RunID: run.GetRunID(), TaskQueue: pc.TaskQueue()}
	p := d.printer()
	if watch && !p.json {
		fmt.Fprintf(p.out, "started plan %s\n", started.WorkflowID)
		return follow(ctx, d, started.WorkflowID)
	}
	return p.emit(started, func(w io.Writer) error {
		_, err := fmt.Fprintf(w, "started plan %s\n  watch:   planmode watch %s\n  options: planmode show %s\n  result:  planmode result %s\n",
			started.WorkflowID, started.WorkflowID, started.WorkflowID, started.WorkflowID)
		return err
	})
}

// startedPlan is start's answer.
type startedPlan struct {
	WorkflowID string `json:"workflowId"`
	RunID      string `json:"runId"`
	TaskQueue  string `json:"taskQueue"`
}
