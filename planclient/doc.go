// Package planclient is planmode's typed Go client: the one Go API through
// which other services, the planmode CLI and the benchmarks start plans,
// answer what they wait for, steer them and read them. Each call sends a
// name of the wire contract (package signals) with its typed payload and
// decodes the typed answer; the contract itself, and nothing of the client,
// lives in signals.
//
// # Errors
//
// A call on one plan fails with an error that names the plan and what was
// asked ("plan p: update pause: ..."). A run's refusal of an input (an
// update's validator answer) reads as the run wrote it, "rejected: ..."
// without the SDK's decorations, and errors.Is finds [signals.ErrRejected]
// in it; [signals.RejectionType] reads its type. The SDK's own errors (a
// plan Temporal does not know, a server that cannot be reached) stay
// reachable with errors.As.
//
// # Standing
//
// [Client.Standing] says how a plan stands even when it cannot answer a
// query (queued for a worker, its worker busy or gone, closed), from the
// run's status and search attributes.
package planclient
