package mcpserver

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// MaxBodyBytes bounds the body of one MCP request over HTTP: a start
// request (signals.MaxStartRequestBytes) with a plan handed in
// (signals.MaxPlanBytes) fits, with room for the JSON-RPC envelope.
const MaxBodyBytes = 2 << 20

// maxServers bounds the servers Handler keeps, one per caller; past it
// they are made afresh.
const maxServers = 1024

// Handler returns the MCP server of plans over Streamable HTTP, for
// planmode serve to mount at /mcp behind its tokens. It is stateless:
// every POST is a whole exchange, no session is kept between requests
// and none is needed to answer one, so replicas behind any balancer
// answer alike (GET and DELETE, which only sessions need, are 405).
// callerOf names the caller of a request (the token's identity and
// tenants, which the serving side put in its context); a request without
// one is refused with 401. Each request is answered by a server bound to
// its caller (New with WithCaller), kept for the next requests of the same
// caller. opts configure those servers.
func Handler(plans Plans, callerOf func(*http.Request) (Caller, bool), opts ...Option) http.Handler {
	byCaller := &servers{plans: plans, opts: append(append([]Option{}, opts...), stateless()), of: map[string]*mcp.Server{}}
	h := mcp.NewStreamableHTTPHandler(func(r *http.Request) *mcp.Server {
		c, ok := callerOf(r)
		if !ok {
			return nil
		}
		return byCaller.get(c)
	}, &mcp.StreamableHTTPOptions{
		Stateless:           true,
		JSONResponse:        true,
		MaxRequestBodyBytes: MaxBodyBytes,
		// The serving side checks the Origin of every request and asks
		// every one for its token: a page a DNS rebinding points at this
		// server has neither an allowed origin nor a token. The SDK's own
		// check would refuse a TLS proxy on this host that forwards
		// another Host.
		DisableLocalhostProtection: true,
	})
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if _, ok := callerOf(r); !ok {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusUnauthorized)
			_ = json.NewEncoder(w).Encode(map[string]string{"error": "no caller: a bearer token is required"})
			return
		}
		keepTask(r)
		h.ServeHTTP(w, r)
	})
}

// keepTask moves the params.task of a tools/call in r's body where the
// SDK keeps it (see moveTaskParam). A body past MaxBodyBytes is left for
// the SDK to refuse.
func keepTask(r *http.Request) {
	if r.Method != http.MethodPost || r.Body == nil {
		return
	}
	body, err := io.ReadAll(io.LimitReader(r.Body, MaxBodyBytes+1))
	if err != nil || len(body) > MaxBodyBytes {
		r.Body = readCloser{io.MultiReader(bytes.NewReader(body), r.Body), r.Body}
		return
	}
	body = moveTaskParamOfMessage(body)
	r.Body, r.ContentLength = io.NopCloser(bytes.NewReader(body)), int64(len(body))
}

// readCloser reads from Reader and closes Closer.
type readCloser struct {
	io.Reader
	io.Closer
}

// servers are the MCP servers of the callers seen, one each.
type servers struct {
	plans Plans
	opts  []Option

	mu sync.Mutex
	of map[string]*mcp.Server
}

// get returns the server of c, made on first use.
func (s *servers) get(c Caller) *mcp.Server {
	key := c.Identity + "\x00" + strings.Join(c.Tenants, ",")
	s.mu.Lock()
	defer s.mu.Unlock()
	if srv, ok := s.of[key]; ok {
		return srv
	}
	if len(s.of) >= maxServers {
		clear(s.of)
	}
	srv := New(s.plans, append(append([]Option{}, s.opts...), WithCaller(c))...)
	s.of[key] = srv
	return srv
}
