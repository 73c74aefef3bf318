// Package openai adapts every OpenAI-compatible chat completions API
// (OpenAI, Azure OpenAI, Ollama, vLLM, llama.cpp, the offline model) to
// [llm.Client], on go-openai. It is the one package of the product that
// talks to a provider, and the only one importing go-openai's client.
//
// The adapter never retries: Temporal's activity retry policy does, guided
// by the errors [Client.Complete] returns, classified by
// [llm.ClassifyError].
package openai
