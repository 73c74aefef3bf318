package offline

import (
	"net/http"
	"net/http/httptest"
	"sync"
	"time"

	openai "github.com/sashabaranov/go-openai"
)

// PhaseUnknown is the phase of a request whose first system message does
// not start with the planmode phase line.
const PhaseUnknown = "unknown"

// AnyPhase, given to Enqueue, queues replies for whichever phase asks
// first; given to Calls and Usage, it sums over every phase.
const AnyPhase = ""

// Usage is a token count, summed per phase by the server.
type Usage struct {
	PromptTokens     int
	CompletionTokens int
}

// Recorded is one chat completion request as the server received it.
type Recorded struct {
	Phase   string
	Model   string
	Request openai.ChatCompletionRequest
	At      time.Time
}

// Server is a running fake OpenAI-compatible server on 127.0.0.1. It is
// safe for concurrent use.
type Server struct {
	cfg  config
	http *httptest.Server
	// done is closed by Close so that hanging and waiting replies return
	// before the HTTP server waits for them.
	done      chan struct{}
	closeOnce sync.Once

	mu       sync.Mutex
	queues   map[string][]Reply
	calls    map[string]int
	usage    map[string]Usage
	requests []Recorded
	nextID   int
	nextCall int
}

// New starts a server listening on 127.0.0.1 at a free port. Close it when
// done.
func New(opts ...ServerOption) *Server {
	cfg := config{model: DefaultModel}
	for _, o := range opts {
		o(&cfg)
	}
	if cfg.brain == nil {
		cfg.brain = NewOfflineBrain()
	}
	s := &Server{cfg: cfg, done: make(chan struct{})}
	s.resetLocked()
	mux := http.NewServeMux()
	mux.HandleFunc("POST /v1/chat/completions", s.handleChat)
	mux.HandleFunc("GET /v1/models", s.handleModels)
	mux.HandleFunc("/", s.handleNotFound)
	// httptest.NewServer listens on 127.0.0.1:0, loopback only.
	s.http = httptest.NewServer(mux)
	return s
}

// URL returns the base URL to give go-openai's ClientConfig.BaseURL; it
// ends in "/v1".
func (s *Server) URL() string { return s.http.URL + "/v1" }

// Close stops the server. Replies still waiting or hanging are abandoned
// first, so Close does not block on them.
func (s *Server) Close() {
	s.closeOnce.Do(func() {
		close(s.done)
		s.http.CloseClientConnections()
		s.http.Close()
	})
}

// Enqueue appends replies to phase's queue. Each request takes the first
// reply of its own phase's queue, or, when that is empty, of the AnyPhase
// queue; with both empty the brain answers.
func (s *Server) Enqueue(phase string, replies ...Reply) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.queues[phase] = append(s.queues[phase], replies...)
}

// Pending returns how many scripted replies are still queued for phase
// (AnyPhase: in every queue).
func (s *Server) Pending(phase string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	if phase != AnyPhase {
		return len(s.queues[phase])
	}
	n := 0
	for _, q := range s.queues {
		n += len(q)
	}
	return n
}

// Calls returns how many requests of phase were answered, error replies
// included (AnyPhase: all). A request the client abandoned is not
// counted, unless it abandoned a streamed answer already under way.
func (s *Server) Calls(phase string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	if phase != AnyPhase {
		return s.calls[phase]
	}
	n := 0
	for _, c := range s.calls {
		n += c
	}
	return n
}

// Usage returns the tokens reported by successful replies to phase
// (AnyPhase: all).
func (s *Server) Usage(phase string) Usage {
	s.mu.Lock()
	defer s.mu.Unlock()
	if phase != AnyPhase {
		return s.usage[phase]
	}
	var sum Usage
	for _, u := range s.usage {
		sum.PromptTokens += u.PromptTokens
		sum.CompletionTokens += u.CompletionTokens
	}
	return sum
}

// Requests returns a copy of every chat completion request received, in
// arrival order, answered or not.
func (s *Server) Requests() []Recorded {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Recorded(nil), s.requests...)
}

// Reset clears the queues, counters, recorded requests and id sequences.
func (s *Server) Reset() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.resetLocked()
}

func (s *Server) resetLocked() {
	s.queues = map[string][]Reply{}
	s.calls = map[string]int{}
	s.usage = map[string]Usage{}
	s.requests = nil
	s.nextID = 0
	s.nextCall = 0
}

// record stores a received request.
func (s *Server) record(r Recorded) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.requests = append(s.requests, r)
}

// dequeue pops the scripted reply for phase, if any.
func (s *Server) dequeue(phase string) (Reply, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, key := range []string{phase, AnyPhase} {
		if q := s.queues[key]; len(q) > 0 {
			s.queues[key] = q[1:]
			return q[0], true
		}
	}
	return Reply{}, false
}

// answered counts an answered request and its usage, and returns the
// response id and the first tool call number to use.
func (s *Server) answered(phase string, u Usage, toolCalls int) (id, firstCall int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.calls[phase]++
	cur := s.usage[phase]
	cur.PromptTokens += u.PromptTokens
	cur.CompletionTokens += u.CompletionTokens
	s.usage[phase] = cur
	s.nextID++
	firstCall = s.nextCall + 1
	s.nextCall += toolCalls
	return s.nextID, firstCall
}
