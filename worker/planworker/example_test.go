package planworker_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/planmode/planmode/tools"
	"github.com/planmode/planmode/worker/planworker"
)

// A Go program adds its own tools to the worker it builds, beside the
// built-in ones: the agent sees them, and planning and reflection see the
// read-only ones. A tool goes through the registry's bounds.
func ExampleAddTools() {
	// In a real worker: acts := planworker.NewActivities(cfg, model, offline)
	acts := &planworker.Activities{}
	ticket := tools.Tool{
		Spec: tools.Spec{
			Name:        "lookup_ticket",
			Description: "Return a ticket's title and state.",
			Parameters:  json.RawMessage(`{"type":"object","properties":{"id":{"type":"string"}},"required":["id"]}`),
			ReadOnly:    true,
		},
		Run: func(ctx context.Context, env tools.Env, args json.RawMessage) (tools.Result, error) {
			var a struct {
				ID string `json:"id"`
			}
			if err := tools.DecodeArgs(args, &a); err != nil {
				return tools.Result{}, err // the agent sees why and corrects the call
			}
			return tools.Result{Output: a.ID + ": login fails on Safari (open)"}, nil
		},
	}
	fmt.Println(planworker.AddTools(acts, ticket))
	fmt.Println(strings.Join(acts.Tools.ReadOnlyNames(), " "))

	added, _ := acts.Tools.Get("lookup_ticket")
	res, _ := added.Run(context.Background(), tools.Env{}, json.RawMessage(`{"id":"T-7"}`))
	fmt.Println(res.Output)

	fmt.Println(planworker.AddTools(acts, tools.Tool{Spec: tools.Spec{Name: "mcp__tickets__lookup"}, Run: ticket.Run}))
	// Output:
	// <nil>
	// list_files lookup_ticket read_file search_code search_files
	// T-7: login fails on Safari (open)
	// add tools: register tool "mcp__tickets__lookup": names starting with mcp__ are kept for MCP servers' tools
}
