// Package openai adapts every OpenAI-compatible chat completions API
// (OpenAI, Azure OpenAI, Ollama, vLLM, llama.cpp, the offline model) to
// [llm.Client], on go-openai. It is the one package of the product that
// talks to a provider, and the only one importing go-openai's client.
//
// The adapter never retries: Temporal's activity retry policy does, guided
// by the errors [Client.Complete] returns, classified by
// [llm.ClassifyError].
//
// A request with OnText set streams (stream_options.include_usage asks
// for the usage in the last event) and is assembled into the same
// response as a plain call: the content, the tool calls by index with
// their arguments joined, the finish reason, the model and the usage. A
// provider that refuses to stream, or answers a streamed request in one
// piece, is called in one piece from then on for that model.
package openai
