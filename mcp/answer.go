package mcp

import (
	"encoding/json"

	"github.com/planmode/planmode/tools"
)

// CallInput is one call of a tool as a plan makes it, and as its history
// records it: the JSON shape does not change.
type CallInput struct {
	PlanID string `json:"planId"`
	StepID string `json:"stepId"`
	// CallID names the call within the step (the model's tool call id),
	// for the store of whole outputs.
	CallID string `json:"callId,omitempty"`
	// Name is the tool's public name (mcp__<server>__<tool>).
	Name string `json:"name"`
	// Arguments is a JSON object; empty means none.
	Arguments string `json:"arguments,omitempty"`
	// CatalogueDigest is the digest of the catalogue the plan recorded;
	// a call under another is refused (ErrCatalogueChanged).
	CatalogueDigest string `json:"catalogueDigest"`
}

// CallOutput is what the tool answered, bounded for a plan's history: the
// JSON shape does not change.
type CallOutput struct {
	// Output is the answer's text, its head and tail when longer than
	// the tool output limit (OutputTruncated).
	Output          string `json:"output"`
	OutputTruncated bool   `json:"outputTruncated,omitempty"`
	// OutputRef is the output store's file holding the whole text, when
	// history holds only part of it.
	OutputRef string `json:"outputRef,omitempty"`
	// Structured is the answer's structured content, when there is some
	// and it fits the tool output limit; StructuredOmitted is set when it
	// did not (the whole of it is then in the file of StructuredRef).
	Structured        json.RawMessage `json:"structured,omitempty"`
	StructuredOmitted bool            `json:"structuredOmitted,omitempty"`
	StructuredRef     string          `json:"structuredRef,omitempty"`
	// IsError is set when the tool reported a failure, or the server
	// refused the call; Output says why. The agent sees it and corrects.
	IsError bool `json:"isError,omitempty"`
	// OutcomeUnknown is set when the call may have run but no answer came
	// back (ErrOutcomeUnknown); Error says why.
	OutcomeUnknown bool   `json:"outcomeUnknown,omitempty"`
	Error          string `json:"error,omitempty"`
}

// Bound returns res as a CallOutput: its text cut to its head and tail
// within limit bytes (tools.Truncate), its structured content kept when it
// fits the limit and omitted when it does not. Keeping the whole of what
// was cut, and naming where (the refs), is the caller's.
func Bound(res Result, limit int) CallOutput {
	text, cut := tools.Truncate(res.Text, limit)
	out := CallOutput{Output: text, OutputTruncated: cut, IsError: res.IsError}
	if len(res.Structured) > limit {
		out.StructuredOmitted = true
	} else {
		out.Structured = res.Structured
	}
	return out
}
