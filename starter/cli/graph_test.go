package cli

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/mock"
	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/converter"
	"go.temporal.io/sdk/mocks"

	"github.com/planmode/planmode/plan"
	"github.com/planmode/planmode/signals"
)

// graphFixture is a plan of two steps, the second depending on the first.
func graphFixture(id, title string) plan.Plan {
	return plan.Plan{ID: id, Steps: []plan.Step{
		{ID: "a", Number: 1, Title: title, Status: plan.StepCompleted},
		{ID: "b", Number: 2, Title: "Test", Status: plan.StepPending, DependsOn: []string{"a"}},
	}}
}

// answer makes the mocked client answer query name on plan-1 with v.
func answer(t *testing.T, tc *mocks.Client, name string, v any) {
	t.Helper()
	payloads, err := converter.GetDefaultDataConverter().ToPayloads(v)
	require.NoError(t, err)
	tc.On("QueryWorkflow", mock.Anything, "plan-1", "", name).Return(client.NewValue(payloads), nil).Once()
}

func TestGraphDrawsThePlan(t *testing.T) {
	selected := graphFixture("plan-1-r1-o2", "Build")
	options := signals.OptionsView{Revision: 1, Options: []plan.Option{
		{ID: "r1-o1", Rank: 1, Plan: graphFixture("p-o1", "First way")},
		{ID: "r1-o2", Rank: 2, Plan: graphFixture("p-o2", "Second way")},
	}}
	cases := []struct {
		name     string
		args     []string
		query    string
		view     any
		want     []string
		wantCode int
		wantErr  string
	}{
		{name: "selected plan as mermaid", args: []string{"graph", "plan-1"}, query: signals.PlanQuery.Name,
			view: signals.PlanView{Plan: &selected}, want: []string{"flowchart TD\n", `n1["1. Build"]:::done`, "n1 --> n2"}},
		{name: "selected plan as dot", args: []string{"graph", "plan-1", "--format", "dot"}, query: signals.PlanQuery.Name,
			view: signals.PlanView{Plan: &selected}, want: []string{`digraph "plan-1-r1-o2" {`, `n1 [label="1. Build", class="done"`, "n1 -> n2;"}},
		{name: "option by rank", args: []string{"graph", "plan-1", "--option", "2"}, query: signals.OptionsQuery.Name,
			view: options, want: []string{`n1["1. Second way"]:::done`}},
		{name: "option by id", args: []string{"graph", "plan-1", "--option", "r1-o1"}, query: signals.OptionsQuery.Name,
			view: options, want: []string{`n1["1. First way"]:::done`}},
		{name: "no selection yet", args: []string{"graph", "plan-1"}, query: signals.PlanQuery.Name,
			view: signals.PlanView{}, wantCode: exitRejected, wantErr: "plan plan-1 has no selected plan yet: draw an option's with --option"},
		{name: "unknown option", args: []string{"graph", "plan-1", "--option", "7"}, query: signals.OptionsQuery.Name,
			view: options, wantCode: exitRejected, wantErr: `no option "7": want a rank 1..2 or one of r1-o1, r1-o2`},
		{name: "no options yet", args: []string{"graph", "plan-1", "--option", "1"}, query: signals.OptionsQuery.Name,
			view: signals.OptionsView{}, wantCode: exitRejected, wantErr: "plan plan-1 has no options yet"},
		{name: "bad format asks nothing", args: []string{"graph", "plan-1", "--format", "svg"},
			wantCode: exitRejected, wantErr: `--format "svg": want mermaid or dot`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			d, out, errOut := newTestDeps(t, "")
			temporal := mocks.NewClient(t)
			temporal.On("Close").Return().Once()
			if tc.query != "" {
				answer(t, temporal, tc.query, tc.view)
			}
			d.client = temporal

			code := run(context.Background(), d, tc.args)
			assert.Equal(t, tc.wantCode, code, errOut.String())
			for _, w := range tc.want {
				assert.Contains(t, out.String(), w)
			}
			if tc.wantErr != "" {
				assert.Contains(t, errOut.String(), tc.wantErr)
				assert.Empty(t, out.String())
			}
		})
	}
}

func TestGraphPrintsJSON(t *testing.T) {
	d, out, _ := newTestDeps(t, "")
	temporal := mocks.NewClient(t)
	temporal.On("Close").Return().Once()
	answer(t, temporal, signals.OptionsQuery.Name, signals.OptionsView{Options: []plan.Option{
		{ID: "r1-o1", Plan: graphFixture("p-o1", "Only way")},
	}})
	d.client = temporal

	require.Equal(t, exitOK, run(context.Background(), d, []string{"graph", "plan-1", "--option", "1", "--output", "json"}))
	var got drawnGraph
	require.NoError(t, json.Unmarshal(out.Bytes(), &got))
	assert.Equal(t, drawnGraph{WorkflowID: "plan-1", PlanID: "p-o1", OptionID: "r1-o1", Format: formatMermaid,
		Graph: plan.Mermaid(graphFixture("p-o1", "Only way"))}, got, "an unranked option is found by position")
}
