// Package offline is a deterministic OpenAI-compatible chat server on
// loopback. It plays the model in tests and in the demo (the "offline
// model") through the same go-openai client path as a real provider: real
// HTTP, real JSON, real status codes.
//
// # Scripted replies and the brain
//
// Tests queue [Reply] values per phase with [Server.Enqueue]: content, tool
// calls, an error status with a Retry-After header, a delay, a hang, or a
// raw (possibly malformed) body. When no scripted reply is queued the
// server asks its [Brain]; the default brain is the rule-based offline
// model from [NewOfflineBrain].
//
// # Phases
//
// Every planmode request's first system message starts with the line
// "planmode phase: <phase>" (llm.PhaseLine). The server reads
// the phase from it, so queues, call counts and token usage are kept per
// phase. A request without that line has the phase [PhaseUnknown].
//
// # Streaming
//
// A request with "stream": true is answered as OpenAI streams: the content
// in pieces of a few words, the tool calls whole, the finish reason, the
// usage when asked for, then "[DONE]". The server's latency
// ([WithLatency]) is spread over the pieces, so that the text arrives
// gradually.
//
// # Usage
//
// Every successful reply carries deterministic token counts: a token is
// four characters, rounded up. See [CountUsage].
package offline
