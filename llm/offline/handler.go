package offline

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"time"

	openai "github.com/sashabaranov/go-openai"
)

// created is the fixed "created" time of every response, so that replies
// are byte-for-byte deterministic.
const created = 1735689600 // 2025-01-01T00:00:00Z

// maxBody caps a request body.
const maxBody = 8 << 20

// handleChat answers POST /v1/chat/completions.
func (s *Server) handleChat(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(io.LimitReader(r.Body, maxBody))
	if err != nil {
		writeError(w, http.StatusBadRequest, "read request body: "+err.Error())
		return
	}
	var req openai.ChatCompletionRequest
	if err := json.Unmarshal(body, &req); err != nil {
		writeError(w, http.StatusBadRequest, "decode chat completion request: "+err.Error())
		return
	}
	phase := ParsePhase(req.Messages)
	s.record(Recorded{Phase: phase, Model: req.Model, Request: req, At: time.Now()})
	if !s.authorized(r) {
		s.answered(phase, Usage{}, 0)
		writeError(w, http.StatusUnauthorized, "Incorrect API key provided.")
		return
	}
	reply, scripted := s.dequeue(phase)
	if !scripted {
		reply = ensureJSON(req, s.cfg.brain.Reply(phase, req))
	}
	// A streamed answer spreads the server's latency over its events, so
	// that its text arrives gradually; any other waits it whole first.
	wait := s.cfg.latency + reply.Delay
	if req.Stream && answers(reply) {
		wait = reply.Delay
	}
	if !s.wait(r.Context(), wait, reply.Hang) {
		// The client gave up or the server is closing: drop the
		// connection rather than send a half answer.
		panic(http.ErrAbortHandler)
	}
	s.respond(r.Context(), w, phase, req, reply)
}

// answers reports whether reply is an answer (status 200 and no raw
// body) rather than an error or a malformed body.
func answers(reply Reply) bool {
	return reply.RawBody == "" && (reply.Status == 0 || reply.Status == http.StatusOK)
}

// respond writes reply as the answer to req; ctx is the request's, which
// a streamed answer stops at.
func (s *Server) respond(ctx context.Context, w http.ResponseWriter, phase string, req openai.ChatCompletionRequest,
	reply Reply) {
	if reply.RetryAfter != "" {
		w.Header().Set("Retry-After", reply.RetryAfter)
	}
	status := reply.Status
	if status == 0 {
		status = http.StatusOK
	}
	switch {
	case reply.RawBody != "":
		s.answered(phase, Usage{}, 0)
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		_, _ = io.WriteString(w, reply.RawBody)
	case status != http.StatusOK:
		s.answered(phase, Usage{}, 0)
		writeError(w, status, reply.Content)
	default:
		u := CountUsage(req, reply)
		id, firstCall := s.answered(phase, Usage{u.PromptTokens, u.CompletionTokens}, len(reply.ToolCalls))
		resp := buildResponse(id, firstCall, s.modelFor(req), reply, u)
		if req.Stream {
			pace := func(n int) bool { return s.wait(ctx, s.cfg.latency/time.Duration(n), false) }
			writeStream(w, resp, req.StreamOptions != nil && req.StreamOptions.IncludeUsage, pace)
			return
		}
		writeJSON(w, http.StatusOK, resp)
	}
}

// authorized reports whether r carries the configured API key, if any.
func (s *Server) authorized(r *http.Request) bool {
	return s.cfg.apiKey == "" || r.Header.Get("Authorization") == "Bearer "+s.cfg.apiKey
}

// modelFor returns the model a response names: the requested one, or the
// server's.
func (s *Server) modelFor(req openai.ChatCompletionRequest) string {
	if req.Model != "" {
		return req.Model
	}
	return s.cfg.model
}

// wait waits d, or forever when hang is set, and reports whether to answer:
// false when the request's context ends or the server closes first.
func (s *Server) wait(ctx context.Context, d time.Duration, hang bool) bool {
	if hang {
		select {
		case <-ctx.Done():
		case <-s.done:
		}
		return false
	}
	if d <= 0 {
		return true
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-ctx.Done():
		return false
	case <-s.done:
		return false
	}
}

// buildResponse assembles a chat completion response.
func buildResponse(id, firstCall int, model string, reply Reply, u openai.Usage) openai.ChatCompletionResponse {
	msg := openai.ChatCompletionMessage{Role: openai.ChatMessageRoleAssistant, Content: reply.Content}
	for i, tc := range reply.ToolCalls {
		msg.ToolCalls = append(msg.ToolCalls, openai.ToolCall{
			ID:       "call_" + strconv.Itoa(firstCall+i),
			Type:     openai.ToolTypeFunction,
			Function: openai.FunctionCall{Name: tc.Name, Arguments: tc.Arguments},
		})
	}
	finish := openai.FinishReason(reply.FinishReason)
	if finish == "" {
		finish = openai.FinishReasonStop
		if len(reply.ToolCalls) > 0 {
			finish = openai.FinishReasonToolCalls
		}
	}
	return openai.ChatCompletionResponse{
		ID:                "chatcmpl-" + strconv.Itoa(id),
		Object:            "chat.completion",
		Created:           created,
		Model:             model,
		Choices:           []openai.ChatCompletionChoice{{Index: 0, Message: msg, FinishReason: finish}},
		Usage:             u,
		SystemFingerprint: "fp_offline",
	}
}

// handleModels answers GET /v1/models with the served model.
func (s *Server) handleModels(w http.ResponseWriter, r *http.Request) {
	if !s.authorized(r) {
		writeError(w, http.StatusUnauthorized, "Incorrect API key provided.")
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{
		"object": "list",
		"data": []map[string]any{{
			"id": s.cfg.model, "object": "model", "created": created, "owned_by": "planmode",
		}},
	})
}

// handleNotFound answers every other path with an OpenAI-style 404.
func (s *Server) handleNotFound(w http.ResponseWriter, r *http.Request) {
	writeError(w, http.StatusNotFound, fmt.Sprintf("Unknown request URL: %s %s.", r.Method, r.URL.Path))
}

// apiError is the body of an OpenAI error response.
type apiError struct {
	Error struct {
		Message string  `json:"message"`
		Type    string  `json:"type"`
		Param   *string `json:"param"`
		Code    string  `json:"code"`
	} `json:"error"`
}

// writeError writes an OpenAI-style error; an empty message gets a default
// one for the status.
func writeError(w http.ResponseWriter, status int, msg string) {
	var e apiError
	e.Error.Type, e.Error.Code = errorKind(status)
	e.Error.Message = msg
	if msg == "" {
		e.Error.Message = fmt.Sprintf("%s (scripted reply)", http.StatusText(status))
	}
	writeJSON(w, status, e)
}

// errorKind returns the OpenAI error type and code for a status.
func errorKind(status int) (typ, code string) {
	switch {
	case status == http.StatusUnauthorized:
		return "invalid_request_error", "invalid_api_key"
	case status == http.StatusForbidden:
		return "permission_error", "forbidden"
	case status == http.StatusNotFound:
		return "invalid_request_error", "not_found"
	case status == http.StatusTooManyRequests:
		return "rate_limit_error", "rate_limit_exceeded"
	case status == http.StatusServiceUnavailable:
		return "server_error", "service_unavailable"
	case status >= 500:
		return "server_error", "server_error"
	default:
		return "invalid_request_error", "invalid_request"
	}
}

// writeJSON writes v as a JSON body with status.
func writeJSON(w http.ResponseWriter, status int, v any) {
	b, err := json.Marshal(v)
	if err != nil {
		http.Error(w, "encode response: "+err.Error(), http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, _ = w.Write(b)
}
