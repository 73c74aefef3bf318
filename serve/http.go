package serve

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"
	"unicode"
)

// callerKey is the context key of the request's Caller.
type callerKey struct{}

// CallerOf returns the caller whose token the request carried, for the
// handlers that record who did what.
func CallerOf(ctx context.Context) (Caller, bool) {
	c, ok := ctx.Value(callerKey{}).(Caller)
	return c, ok
}

// Handler returns the server's routes, each behind the checks every
// request goes through: origin, connection bound, token; and the mounts
// (WithMount) behind the same checks and their own bounds.
func (s *Server) Handler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /healthz", s.healthz)
	mux.Handle("GET /plans/{id}/events", s.guard(s.events))
	mux.Handle("GET /plans/{id}", s.guard(s.state))
	mux.Handle("OPTIONS /plans/", s.checkOrigin(http.HandlerFunc(s.preflight)))
	if len(s.mounts) == 0 {
		return s.limitBody(mux)
	}
	root := http.NewServeMux()
	root.Handle("/", s.limitBody(mux))
	for _, m := range s.mounts {
		root.Handle(m.Pattern, s.mounted(m))
	}
	return root
}

// withDefaults returns m with its zero bounds set from cfg.
func (m Mount) withDefaults(cfg Config) Mount {
	if m.MaxBodyBytes <= 0 {
		m.MaxBodyBytes = MaxBodyBytes
	}
	if m.Timeout <= 0 {
		m.Timeout = cfg.WriteTimeout
	}
	if len(m.Methods) == 0 {
		m.Methods = []string{http.MethodPost}
	}
	return m
}

// mounted puts m's handler behind the checks of every request, in the
// order guard keeps, then bounds what the request may cost: a body
// declared larger than m.MaxBodyBytes is refused with 413 before the
// handler runs and no more is ever read, and reading the request and
// writing its answer must end within m.Timeout. A browser's preflight
// of an allowed origin is answered here.
func (s *Server) mounted(m Mount) http.Handler {
	h := s.limitConnections(s.authenticate(func(w http.ResponseWriter, r *http.Request, _ Caller) {
		if r.ContentLength > m.MaxBodyBytes {
			w.Header().Set("Connection", "close")
			writeError(w, http.StatusRequestEntityTooLarge,
				fmt.Sprintf("the body is %d bytes: at most %d", r.ContentLength, m.MaxBodyBytes))
			return
		}
		r.Body = http.MaxBytesReader(w, r.Body, m.MaxBodyBytes)
		rc := http.NewResponseController(w)
		end := time.Now().Add(m.Timeout)
		_ = rc.SetReadDeadline(end)
		_ = rc.SetWriteDeadline(end)
		m.Handler.ServeHTTP(w, r)
	}))
	methods := strings.Join(m.Methods, ", ")
	return s.checkOrigin(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodOptions {
			s.preflightOf(w, r, methods)
			return
		}
		h.ServeHTTP(w, r)
	}))
}

// preflightOf answers a browser's CORS preflight of an allowed origin
// for a mount: its methods, and the headers the browser asks to send
// (the token among them), which the mount's handler judges.
func (s *Server) preflightOf(w http.ResponseWriter, r *http.Request, methods string) {
	h := w.Header()
	h.Set("Access-Control-Allow-Methods", methods)
	if asked := r.Header.Get("Access-Control-Request-Headers"); asked != "" {
		h.Set("Access-Control-Allow-Headers", asked)
	}
	h.Set("Access-Control-Max-Age", "600")
	w.WriteHeader(http.StatusNoContent)
}

// guard puts h behind the checks, in an order that says the least to
// whom it refuses: a foreign origin before anything, then the bound on
// connections, then the token.
func (s *Server) guard(h func(http.ResponseWriter, *http.Request, Caller)) http.Handler {
	return s.checkOrigin(s.limitConnections(s.authenticate(h)))
}

// healthz answers 200 to anyone: it reads nothing and takes no token, so
// a load balancer can ask it.
func (s *Server) healthz(w http.ResponseWriter, _ *http.Request) {
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	_, _ = w.Write([]byte("ok\n"))
}

// limitBody caps every request's body: no endpoint reads one, and a
// handler that started to would not read more than MaxBodyBytes.
func (s *Server) limitBody(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		r.Body = http.MaxBytesReader(w, r.Body, MaxBodyBytes)
		h.ServeHTTP(w, r)
	})
}

// checkOrigin refuses a browser's request from an origin not allowed;
// a request with no Origin is not a browser's cross-site request and
// goes on. An allowed origin gets the CORS headers a browser needs to
// read the answer.
func (s *Server) checkOrigin(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		origin := r.Header.Get("Origin")
		if origin != "" {
			if !s.origins[origin] {
				writeError(w, http.StatusForbidden, "origin "+origin+" is not allowed (serve.allowedOrigins)")
				return
			}
			w.Header().Set("Access-Control-Allow-Origin", origin)
			w.Header().Add("Vary", "Origin")
		}
		h.ServeHTTP(w, r)
	})
}

// preflight answers a browser's CORS preflight of an allowed origin:
// GET with a token and a Last-Event-ID.
func (s *Server) preflight(w http.ResponseWriter, _ *http.Request) {
	h := w.Header()
	h.Set("Access-Control-Allow-Methods", "GET")
	h.Set("Access-Control-Allow-Headers", "Authorization, Last-Event-ID")
	h.Set("Access-Control-Max-Age", "600")
	w.WriteHeader(http.StatusNoContent)
}

// limitConnections answers 503 past MaxConnections requests at once.
func (s *Server) limitConnections(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if s.active.Add(1) > int64(s.cfg.MaxConnections) {
			s.active.Add(-1)
			w.Header().Set("Retry-After", "5")
			w.Header().Set("Connection", "close")
			writeError(w, http.StatusServiceUnavailable, "the server is at its bound of connections (serve.maxConnections)")
			return
		}
		defer s.active.Add(-1)
		h.ServeHTTP(w, r)
	})
}

// authenticate passes the request's Caller to h, or answers 401 when the
// request carries no token, or one the tokens file does not hold.
func (s *Server) authenticate(h func(http.ResponseWriter, *http.Request, Caller)) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		tok, ok := bearer(r)
		if !ok {
			w.Header().Set("WWW-Authenticate", `Bearer realm="planmode"`)
			writeError(w, http.StatusUnauthorized, "a bearer token is required: Authorization: Bearer TOKEN")
			return
		}
		caller, ok := s.tokens.lookup(tok)
		if !ok {
			w.Header().Set("WWW-Authenticate", `Bearer realm="planmode", error="invalid_token"`)
			writeError(w, http.StatusUnauthorized, "the token is not valid")
			return
		}
		h(w, r.WithContext(context.WithValue(r.Context(), callerKey{}, caller)), caller)
	})
}

// bearer returns the request's bearer token.
func bearer(r *http.Request) (string, bool) {
	scheme, tok, ok := strings.Cut(r.Header.Get("Authorization"), " ")
	tok = strings.TrimSpace(tok)
	return tok, ok && strings.EqualFold(scheme, "Bearer") && tok != ""
}

// plan returns the request's plan id and its tenant once the caller may
// see the plan, or answers why not: 400 for a malformed id, 404 for an unknown plan,
// 403 for a plan of a tenant the token does not list.
func (s *Server) plan(w http.ResponseWriter, r *http.Request, c Caller) (string, string, bool) {
	id := r.PathValue("id")
	if id == "" || len(id) > MaxPlanIDBytes || strings.IndexFunc(id, unicode.IsControl) >= 0 {
		writeError(w, http.StatusBadRequest, "the plan id is empty, longer than 1000 bytes or holds a control character")
		return "", "", false
	}
	tenant, err := s.src.Tenant(r.Context(), id)
	if err != nil {
		s.sourceError(w, id, err)
		return "", "", false
	}
	if !c.mayFollow(tenant) {
		writeError(w, http.StatusForbidden, "the token may not see plans of this tenant")
		return "", "", false
	}
	return id, tenant, true
}

// state answers the plan's state as JSON.
func (s *Server) state(w http.ResponseWriter, r *http.Request, c Caller) {
	id, _, ok := s.plan(w, r, c)
	if !ok {
		return
	}
	st, err := s.src.State(r.Context(), id)
	if err != nil {
		s.sourceError(w, id, err)
		return
	}
	_ = http.NewResponseController(w).SetWriteDeadline(time.Now().Add(s.cfg.WriteTimeout))
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	_, _ = w.Write(st)
}

// sourceError answers a failed read of plan id: 404 for an unknown plan,
// else 502. The cause is logged, not answered: it may name the servers
// behind this one.
func (s *Server) sourceError(w http.ResponseWriter, id string, err error) {
	switch {
	case errors.Is(err, ErrUnknownPlan):
		writeError(w, http.StatusNotFound, "no plan "+id)
	case errors.Is(err, context.Canceled):
		// The client left; nobody reads the answer.
	default:
		s.log.Warn("plan read failed", "plan", id, "err", err)
		writeError(w, http.StatusBadGateway, "the plan could not be read; try again")
	}
}

// writeError answers status with {"error": msg}.
func writeError(w http.ResponseWriter, status int, msg string) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(map[string]string{"error": msg})
}
