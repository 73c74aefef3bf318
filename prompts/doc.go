// Package prompts renders what planmode says to the model: one system and
// one user template per LLM phase (templates/*.tmpl, embedded), the data
// each phase's templates receive, and the messages built from them.
//
// Every system message starts with [PhaseLine] and the phase, then the
// template, then the caller's [Custom] prompts. The wording is part of the
// product: the offline model reads its labelled lines ("Goal:",
// "Workspace files:", ...) and the token benchmarks count it, so a change
// of text is a change of behaviour.
//
// Step prompts only ever see a plan.StepContext, whose size does not
// depend on the plan's length, and every list a prompt shows is bounded,
// so that a run's prompt tokens grow linearly with its steps.
package prompts
