package mcpserver

import (
	"bytes"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// MaxBodyBytes bounds the body of one MCP request over HTTP: a start
// request (signals.MaxStartRequestBytes) with a plan handed in
// (signals.MaxPlanBytes) fits, with room for the JSON-RPC envelope.
const MaxBodyBytes = 2 << 20

// maxServers bounds the servers Handler keeps, one per caller; past it
// they are made afresh.
const maxServers = 1024

// MaxSessions bounds the sessions Handler keeps open at once; a host
// that initializes past it is answered statelessly (no session, so no
// elicitation).
const MaxSessions = 256

// SessionIdle is how long Handler keeps a session no request uses; past
// it the session is closed and its host's next request with it is
// answered statelessly.
const SessionIdle = 10 * time.Minute

// sessionHeader is the header of Streamable HTTP that names a session.
const sessionHeader = "Mcp-Session-Id"

// Handler returns the MCP server of plans over Streamable HTTP, for
// planmode serve to mount at /mcp behind its tokens.
//
// A host that initializes declaring elicitation gets a session
// (Mcp-Session-Id), kept in this process, at most MaxSessions at once and each for SessionIdle without
// a request: on it tasks/result asks the person what the plan waits for
// (elicitation), as over stdio, its request's answer a stream of events.
// Every other request needs no session: one without a session id, or
// with one this process does not keep (another replica's, an expired
// one, another caller's), is answered on its own, as a whole exchange in
// one JSON answer, so replicas behind any balancer answer alike; only
// elicitation needs the requests of a session to reach the replica that
// keeps it.
//
// callerOf names the caller of a request (the token's identity and
// tenants, which the serving side put in its context); a request without
// one is refused with 401. Each request is answered by a server bound to
// its caller (New with WithCaller), kept for the next requests of the same
// caller. opts configure those servers.
func Handler(plans Plans, callerOf func(*http.Request) (Caller, bool), opts ...Option) http.Handler {
	secret := make([]byte, 32)
	_, _ = rand.Read(secret)
	byCaller := &servers{plans: plans, opts: append(append([]Option{}, opts...), stateless()), of: map[string]*mcp.Server{}}
	sessions := &servers{plans: plans, opts: opts, secret: secret, of: map[string]*mcp.Server{}}
	serverOf := func(s *servers) func(*http.Request) *mcp.Server {
		return func(r *http.Request) *mcp.Server {
			c, ok := callerOf(r)
			if !ok {
				return nil
			}
			return s.get(c)
		}
	}
	// The serving side checks the Origin of every request and asks every
	// one for its token: a page a DNS rebinding points at this server has
	// neither an allowed origin nor a token. The SDK's own check would
	// refuse a TLS proxy on this host that forwards another Host.
	statelessH := mcp.NewStreamableHTTPHandler(serverOf(byCaller), &mcp.StreamableHTTPOptions{
		Stateless:                  true,
		JSONResponse:               true,
		MaxRequestBodyBytes:        MaxBodyBytes,
		DisableLocalhostProtection: true,
	})
	// A session's answers are streams of events: tasks/result sends its
	// elicitation on its own.
	statefulH := mcp.NewStreamableHTTPHandler(serverOf(sessions), &mcp.StreamableHTTPOptions{
		SessionTimeout:             SessionIdle,
		MaxRequestBodyBytes:        MaxBodyBytes,
		DisableLocalhostProtection: true,
	})
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		c, ok := callerOf(r)
		if !ok {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusUnauthorized)
			_ = json.NewEncoder(w).Encode(map[string]string{"error": "no caller: a bearer token is required"})
			return
		}
		body, whole := readBody(r)
		if !whole {
			statelessH.ServeHTTP(w, r)
			return
		}
		body = moveTaskParamOfMessage(body)
		id := r.Header.Get(sessionHeader)
		switch {
		case id != "" && strings.HasPrefix(id, sessions.tag(c)+"."):
			// The session may be gone (expired, closed): then the SDK
			// answers 404 before it reads the body, and the request is
			// answered on its own instead.
			sw := &sessionWriter{ResponseWriter: w}
			statefulH.ServeHTTP(sw, withBody(r, body))
			if !sw.gone {
				return
			}
			if r.Method != http.MethodPost {
				http.Error(w, "session not found", http.StatusNotFound)
				return
			}
			r.Header.Del(sessionHeader)
		case id == "" && r.Method == http.MethodPost && elicits(body) && sessions.count() < MaxSessions:
			statefulH.ServeHTTP(w, withBody(r, body))
			return
		case id != "":
			r.Header.Del(sessionHeader)
		}
		if r.Method != http.MethodPost {
			// Without a session of this process there is nothing to
			// end or stream.
			statelessH.ServeHTTP(w, r)
			return
		}
		statelessH.ServeHTTP(w, withBody(r, body))
	})
}

// readBody reads r's body whole and reports whether it fit in
// MaxBodyBytes; a body past it is left in r for the SDK to refuse.
func readBody(r *http.Request) ([]byte, bool) {
	if r.Body == nil {
		return nil, true
	}
	body, err := io.ReadAll(io.LimitReader(r.Body, MaxBodyBytes+1))
	if err != nil || len(body) > MaxBodyBytes {
		r.Body = readCloser{io.MultiReader(bytes.NewReader(body), r.Body), r.Body}
		return nil, false
	}
	return body, true
}

// withBody returns r with body as its body.
func withBody(r *http.Request, body []byte) *http.Request {
	r.Body, r.ContentLength = io.NopCloser(bytes.NewReader(body)), int64(len(body))
	return r
}

// elicits reports whether body is an initialize request of a host that
// declares elicitation: the one kind of host a session serves.
func elicits(body []byte) bool {
	var msg struct {
		Method string `json:"method"`
		Params struct {
			Capabilities struct {
				Elicitation json.RawMessage `json:"elicitation"`
			} `json:"capabilities"`
		} `json:"params"`
	}
	return json.Unmarshal(body, &msg) == nil && msg.Method == methodInitialize &&
		len(msg.Params.Capabilities.Elicitation) > 0 && string(msg.Params.Capabilities.Elicitation) != "null"
}

// sessionWriter passes a session's answer on, unless it is 404: the
// session is not kept here (gone is set) and nothing is written.
type sessionWriter struct {
	http.ResponseWriter
	gone, wrote bool
}

func (w *sessionWriter) WriteHeader(code int) {
	if !w.wrote && code == http.StatusNotFound {
		w.gone = true
	}
	w.wrote = true
	if w.gone {
		return
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *sessionWriter) Write(b []byte) (int, error) {
	if !w.wrote {
		w.WriteHeader(http.StatusOK)
	}
	if w.gone {
		return len(b), nil
	}
	if _, err := w.ResponseWriter.Write(uncarryEvent(b)); err != nil {
		return 0, err
	}
	return len(b), nil
}

func (w *sessionWriter) Flush() {
	if f, ok := w.ResponseWriter.(http.Flusher); ok && !w.gone {
		f.Flush()
	}
}

// Unwrap lets http.ResponseController reach the writer underneath.
func (w *sessionWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// readCloser reads from Reader and closes Closer.
type readCloser struct {
	io.Reader
	io.Closer
}

// servers are the MCP servers of the callers seen, one each. With a
// secret they make sessions whose ids begin with their caller's tag, so
// that a session id is only ever used by its caller.
type servers struct {
	plans  Plans
	opts   []Option
	secret []byte

	mu sync.Mutex
	of map[string]*mcp.Server
}

// key is c's key among the servers.
func key(c Caller) string { return c.Identity + "\x00" + strings.Join(c.Tenants, ",") }

// tag is what the ids of c's sessions begin with: a digest of c under
// the secret, which names no caller.
func (s *servers) tag(c Caller) string {
	h := sha256.Sum256(append(append([]byte{}, s.secret...), key(c)...))
	return hex.EncodeToString(h[:12])
}

// get returns the server of c, made on first use.
func (s *servers) get(c Caller) *mcp.Server {
	k := key(c)
	s.mu.Lock()
	defer s.mu.Unlock()
	if srv, ok := s.of[k]; ok {
		return srv
	}
	if len(s.of) >= maxServers {
		clear(s.of)
	}
	opts := append(append([]Option{}, s.opts...), WithCaller(c))
	if s.secret != nil {
		tag := s.tag(c)
		opts = append(opts, sessionIDs(func() string { return tag + "." + rand.Text() }))
	}
	srv := New(s.plans, opts...)
	s.of[k] = srv
	return srv
}

// count is the number of sessions open on the servers.
func (s *servers) count() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := 0
	for _, srv := range s.of {
		for range srv.Sessions() {
			n++
		}
	}
	return n
}
