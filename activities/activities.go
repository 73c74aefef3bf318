// Package activities holds every side effect of a PlanMode run: LLM calls
// (clarify, generate options, run an llm step, one agent turn, reflect,
// summarize) behind a small LLM interface with a go-openai adapter, tool
// calls confined to a workspace, and workspace snapshots for rollback.
//
// The workflow calls these through method references on [Activities]; their
// inputs and outputs are the types in this package.
package activities

// Activities carries the dependencies of every activity: the LLM side
// (llmDeps, llm_activities.go), the tool side (toolDeps,
// tool_activities.go), webhooks (notifyDeps, notify.go) and the store of
// full outputs (outputDeps, outputs.go). Build it with New.
type Activities struct {
	llmDeps
	toolDeps
	notifyDeps
	outputDeps
}

// Option configures Activities.
type Option func(*Activities)

// New returns Activities configured by opts.
func New(opts ...Option) *Activities {
	a := &Activities{}
	for _, o := range opts {
		o(a)
	}
	return a
}
