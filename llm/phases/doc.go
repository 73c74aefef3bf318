// Package phases holds the rules of the LLM phases apart from the call
// itself: what the plan prompt is told (the workspace's files, the tools,
// the MCP tools bounded by [MaxPlanMCPTools]) and what an agent turn is
// told (its iterations and what remains); the plan options a template
// gives without a call and those the model's reply gives, with their ids
// and their token and cost estimates; when a reflection may look at the
// workspace; and how a step's output is cut for history.
//
// They are pure functions of their inputs: the activities call them
// around the model, which they reach through package llm.
package phases
