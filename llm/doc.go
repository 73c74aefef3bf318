// Package llm is planmode's port to a language model: the [Client]
// interface the activities call, the [Request] and [Response] they
// exchange, and what every provider shares.
//
// # Contents
//
//   - The wire of one chat completion: [Request], [Response], [Message],
//     [ToolCall], [ToolSpec], [JSONSchema] and [ResponseFormat], with the
//     Phase* constants every request names.
//   - Streaming: a Request with OnText set is answered as it is written,
//     each delta of the content handed to OnText; the Response is the same.
//   - The adapter's configuration: [Config], per-phase [PhaseConfig].
//   - Error classification: [ClassifyError] turns a provider's failure
//     into a Temporal ApplicationError whose type ([ErrorType]) and
//     retryability say what went wrong; [ParseRetryAfter] reads the wait a
//     provider asks for.
//   - Pricing: [Pricing] costs a call's tokens; a [Meter] makes a call
//     and accounts for it: the model that answered, its usage priced, its
//     error classified.
//   - Structured output: [Structured] asks for a JSON reply, decodes and
//     checks it, and makes one repair request before failing with
//     [ErrorTypeMalformedOutput]; an [Inspection] lets the model call
//     read-only tools for at most [MaxInspectRounds] rounds first.
//
// The go-openai adapter lives in llm/openai, the replies the model writes
// in llm/reply and the offline model in llm/offline.
package llm
