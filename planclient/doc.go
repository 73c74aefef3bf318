// Package planclient is planmode's typed Go client: the one Go API through
// which other services, the planmode CLI and the benchmarks start plans,
// answer what they wait for, steer them and read them. Each call sends a
// name of the wire contract (package signals) with its typed payload and
// decodes the typed answer; the contract itself, and nothing of the client,
// lives in signals.
//
// # Standing
//
// [Client.Standing] says how a plan stands even when it cannot answer a
// query (queued for a worker, its worker busy or gone, closed), from the
// run's status and search attributes.
package planclient
