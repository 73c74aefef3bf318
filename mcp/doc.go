// Package mcp reaches the tools of Model Context Protocol servers through
// the official Go SDK (github.com/modelcontextprotocol/go-sdk): a [Manager]
// connects every configured server when the worker starts, keeps the
// [Catalogue] of the tools they offer under public names
// (mcp__<server>__<tool>), and calls them.
//
// # Servers
//
// A server is a program spoken to over its standard input and output
// (stdio), started in the command sandbox of package tools with a folder
// of its own, a declared environment and no network unless its
// configuration says so; or a Streamable HTTP endpoint whose URL must
// match an allowed prefix, redirects included.
//
// # Bounds
//
// A server offers at most [MaxToolsPerServer] tools; a tool's parameter
// schema must be a JSON Schema object of at most tools.MaxSchemaBytes;
// public names are at most 64 letters, digits, _ and -. What is left out
// is reported in [Catalogue.Problems] with the reason, as is a server that
// could not start, list its tools in time, or answer the protocol.
//
// # Calls
//
// A call either answers ([Result], with isError and structured content
// kept apart), certainly did not reach the server ([ErrUnavailable]), or
// may have run without an answer coming back ([ErrOutcomeUnknown]): the
// caller must not repeat such a call blindly unless the tool says it is
// read-only or idempotent.
package mcp
