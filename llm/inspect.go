package llm

import (
	"context"
	"fmt"
	"slices"

	"github.com/planmode/planmode/plan"
)

// MaxInspectRounds bounds the rounds of read-only tool calls planning and
// reflection may make before they answer.
const MaxInspectRounds = 3

// Inspection lets the model look around before it answers: while it
// calls Tools, each call goes to Run and its result back as a tool
// message, for at most Rounds rounds; the request after the last round
// offers no tools and says Done, so the model must answer.
type Inspection struct {
	Tools  []ToolSpec
	Rounds int
	Done   string
	// Run runs one call and returns the tool message's content. A tool
	// that fails says so there; an error (cancellation) ends the
	// inspection.
	Run func(ctx context.Context, c ToolCall) (string, error)
	// Beat, when set, is told each round that ends.
	Beat func(round int)
}

// Names returns the names of the tools offered, in order.
func (in Inspection) Names() []string {
	names := make([]string, len(in.Tools))
	for i, t := range in.Tools {
		names[i] = t.Name
	}
	return names
}

// Offers reports whether a tool called name is offered: a Run that can
// reach more tools than those (a tool's answer may ask for any) refuses
// the others with it.
func (in Inspection) Offers(name string) bool {
	return slices.ContainsFunc(in.Tools, func(t ToolSpec) bool { return t.Name == name })
}

// Exchange makes requests through call as the inspection allows (see
// Exchange): it returns the last response, the messages that request was
// made with (for a repair) and the usage of every call. With no Tools it
// makes req once, as it is: tool calls in that reply run nowhere.
func (in Inspection) Exchange(call Call) Exchange {
	return func(ctx context.Context, req Request) (Response, []Message, plan.Usage, error) {
		if len(in.Tools) == 0 {
			resp, u, err := call(ctx, req)
			return resp, req.Messages, u, err
		}
		msgs := req.Messages
		var usage plan.Usage
		for round := 1; ; round++ {
			r := req
			r.Messages = msgs
			if round <= in.Rounds {
				r.Tools = in.Tools
			}
			resp, u, err := call(ctx, r)
			usage = usage.Add(u)
			if err != nil || len(resp.ToolCalls) == 0 || round > in.Rounds {
				return resp, msgs, usage, err
			}
			calls, results, err := in.run(ctx, round, resp.ToolCalls)
			if err != nil {
				return Response{}, msgs, usage, err
			}
			msgs = append(msgs, Message{Role: RoleAssistant, Content: resp.Content, ToolCalls: calls})
			msgs = append(msgs, results...)
			if round == in.Rounds {
				msgs = append(msgs, Message{Role: RoleUser, Content: in.Done})
			}
			if in.Beat != nil {
				in.Beat(round)
			}
		}
	}
}

// run runs one round's tool calls and returns them, each with an id (tool
// messages must name their call), and their results as tool messages.
// Only cancellation is an error.
func (in Inspection) run(ctx context.Context, round int, calls []ToolCall) ([]ToolCall, []Message, error) {
	var ran []ToolCall
	var results []Message
	for i, c := range calls {
		if ctx.Err() != nil {
			return nil, nil, fmt.Errorf("inspect the workspace: %w", ctx.Err())
		}
		if c.ID == "" {
			c.ID = fmt.Sprintf("inspect_%d_%d", round, i+1)
		}
		text, err := in.Run(ctx, c)
		if err != nil {
			return nil, nil, fmt.Errorf("inspect the workspace: %w", err)
		}
		ran = append(ran, c)
		results = append(results, Message{Role: RoleTool, ToolCallID: c.ID, Content: text})
	}
	return ran, results, nil
}
