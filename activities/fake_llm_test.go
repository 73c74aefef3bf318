package activities

import (
	"context"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/temporal"

	"github.com/planmode/planmode/llm"
	"github.com/planmode/planmode/plan"
)

// scriptLLM is an LLM that answers from a script, in order, and records
// every request. When the script runs out it answers "{}".
type scriptLLM struct {
	mu       sync.Mutex
	replies  []scripted
	requests []llm.Request
}

// scripted is one answer of a scriptLLM: a reply or an error.
type scripted struct {
	resp llm.Response
	err  error
}

// text scripts a plain reply with fixed usage.
func text(content string) scripted {
	return scripted{resp: llm.Response{Content: content, Model: "gpt-4o",
		Usage: plan.Usage{PromptTokens: 100, CompletionTokens: 20, TotalTokens: 120}}}
}

// Complete returns the next scripted answer.
func (s *scriptLLM) Complete(_ context.Context, req llm.Request) (llm.Response, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.requests = append(s.requests, req)
	if len(s.replies) == 0 {
		return llm.Response{Content: "{}"}, nil
	}
	r := s.replies[0]
	s.replies = s.replies[1:]
	return r.resp, r.err
}

// calls returns how many requests were made.
func (s *scriptLLM) calls() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.requests)
}

// newScripted returns activities over a scriptLLM answering replies.
func newScripted(replies ...scripted) (Set, *scriptLLM) {
	model := &scriptLLM{replies: replies}
	return worker{LLM: model}.set(), model
}

// appError asserts err is an ApplicationError and returns it.
func appError(t *testing.T, err error) *temporal.ApplicationError {
	t.Helper()
	var appErr *temporal.ApplicationError
	require.ErrorAs(t, err, &appErr)
	return appErr
}
