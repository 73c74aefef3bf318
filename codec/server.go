package codec

import (
	"crypto/subtle"
	"net/http"
	"slices"
	"strings"

	"go.temporal.io/sdk/converter"
)

// MaxRequestBytes bounds a codec server request body. A payload is at most
// 2 MiB on a default server; a request carries the payloads of one event
// or query, so this leaves room for several.
const MaxRequestBytes = 16 << 20

// corsHeaders are the request headers the Web UI sends to a codec server:
// the JSON body, the namespace and, when configured, the user's token.
const corsHeaders = "Content-Type, X-Namespace, Authorization"

// ServerOptions configures [NewHTTPHandler]. The zero value serves any
// caller on the same origin, without a token.
type ServerOptions struct {
	// CORSOrigins may call the server from a browser, e.g. the Web UI at
	// http://localhost:8233; "*" allows every origin.
	CORSOrigins []string
	// AuthToken, when set, must come as "Authorization: Bearer <token>"
	// (`temporal --codec-auth "Bearer <token>"`). Preflight requests are
	// answered without it: browsers never send it there.
	AuthToken string
}

// NewHTTPHandler serves Temporal's remote codec protocol for c: POST
// /encode and POST /decode (under any path prefix, such as
// /{namespace}/decode) take and return {"payloads": [...]} as the SDK's
// converter.NewPayloadCodecHTTPHandler does. Around it the handler answers
// CORS preflight for the allowed origins, checks the bearer token when
// one is set, and bounds the request body to [MaxRequestBytes].
func NewHTTPHandler(c converter.PayloadCodec, opts ServerOptions) http.Handler {
	codec := converter.NewPayloadCodecHTTPHandler(c)
	token := []byte(opts.AuthToken)
	origins := slices.Clone(opts.CORSOrigins)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		allowCORS(w, r, origins)
		if r.Method == http.MethodOptions {
			w.WriteHeader(http.StatusNoContent)
			return
		}
		if len(token) > 0 && !bearerMatches(r.Header.Get("Authorization"), token) {
			w.Header().Set("WWW-Authenticate", `Bearer realm="planmode codec"`)
			http.Error(w, "missing or wrong bearer token", http.StatusUnauthorized)
			return
		}
		if r.Method != http.MethodPost {
			w.Header().Set("Allow", "POST, OPTIONS")
			http.Error(w, "use POST /encode or POST /decode", http.StatusMethodNotAllowed)
			return
		}
		r.Body = http.MaxBytesReader(w, r.Body, MaxRequestBytes)
		codec.ServeHTTP(w, r)
	})
}

// allowCORS sets the CORS answer headers when the request's origin is
// allowed. Credentials are allowed too, as the Web UI may send cookies or
// a token; that is why an allowed origin is echoed, never "*".
func allowCORS(w http.ResponseWriter, r *http.Request, origins []string) {
	origin := r.Header.Get("Origin")
	w.Header().Add("Vary", "Origin")
	if origin == "" || !(slices.Contains(origins, origin) || slices.Contains(origins, "*")) {
		return
	}
	h := w.Header()
	h.Set("Access-Control-Allow-Origin", origin)
	h.Set("Access-Control-Allow-Credentials", "true")
	h.Set("Access-Control-Allow-Methods", "POST, OPTIONS")
	h.Set("Access-Control-Allow-Headers", corsHeaders)
	h.Set("Access-Control-Max-Age", "600")
}

// bearerMatches reports whether header is "Bearer <token>", comparing the
// token in constant time.
func bearerMatches(header string, token []byte) bool {
	scheme, got, ok := strings.Cut(header, " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") {
		return false
	}
	return subtle.ConstantTimeCompare([]byte(strings.TrimSpace(got)), token) == 1
}
