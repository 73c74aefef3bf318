package config

import (
	"fmt"
	"net"
	"net/url"
	"strconv"
	"strings"

	"github.com/planmode/planmode/internal/secretfile"
)

// Codec configures payload encryption and the codec server. With no key
// file, payloads are stored as plain JSON.
type Codec struct {
	// KeyFile holds lines keyID:base64key (32-byte AES-256 keys); the first
	// encrypts, all decrypt. The worker, every CLI command and the codec
	// server must read the same file.
	KeyFile string `mapstructure:"keyFile"`
	// CORSOrigins may call the codec server from a browser: the Web UI's
	// origin, e.g. http://localhost:8233. "*" allows every origin.
	CORSOrigins []string `mapstructure:"corsOrigins"`
	// AuthToken, when set, is the bearer token every codec server request
	// but a CORS preflight must carry. AuthTokenFile holds it instead, for
	// secrets mounted as files; set one or neither.
	AuthToken     string `mapstructure:"authToken"`
	AuthTokenFile string `mapstructure:"authTokenFile"`
	// Listen is the codec server's host:port.
	Listen string `mapstructure:"listen"`
}

// Metrics configures the worker's operations endpoint.
type Metrics struct {
	// Address is the host:port serving /metrics (Prometheus), /healthz and
	// /readyz; empty serves nothing.
	Address string `mapstructure:"address"`
}

// Tracing configures OpenTelemetry tracing of workflows and activities.
type Tracing struct {
	// OTLPEndpoint is the collector's URL, e.g. http://127.0.0.1:4317;
	// http:// sends in the clear, https:// over TLS. Empty turns tracing
	// off.
	OTLPEndpoint string `mapstructure:"otlpEndpoint"`
	// OTLPProtocol is grpc (port 4317 by convention) or http (OTLP over
	// HTTP with protobuf, port 4318).
	OTLPProtocol string `mapstructure:"otlpProtocol"`
	// ServiceName is the service.name resource of every span.
	ServiceName string `mapstructure:"serviceName"`
}

// Keys of the operations sections.
const (
	KeyCodecKeyFile       = "codec.keyFile"
	KeyCodecCORSOrigins   = "codec.corsOrigins"
	KeyCodecAuthToken     = "codec.authToken"
	KeyCodecAuthTokenFile = "codec.authTokenFile"
	KeyCodecListen        = "codec.listen"
	KeyMetricsAddress     = "metrics.address"
	KeyTracingEndpoint    = "tracing.otlpEndpoint"
	KeyTracingProtocol    = "tracing.otlpProtocol"
	KeyTracingService     = "tracing.serviceName"
)

// Defaults of the operations sections.
const (
	DefaultCodecListen     = "127.0.0.1:8081"
	DefaultTracingProtocol = OTLPGRPC
	DefaultServiceName     = "planmode"
)

// OTLP protocols of tracing.otlpProtocol.
const (
	OTLPGRPC = "grpc"
	OTLPHTTP = "http"
)

// DefaultCORSOrigins are the origins of a local Web UI (the dev server's).
func DefaultCORSOrigins() []string {
	return []string{"http://localhost:8233", "http://127.0.0.1:8233"}
}

// operationsDefaults lists the defaults NewViper sets for these sections.
func operationsDefaults() map[string]any {
	return map[string]any{
		KeyCodecListen:      DefaultCodecListen,
		KeyCodecCORSOrigins: DefaultCORSOrigins(),
		KeyTracingProtocol:  DefaultTracingProtocol,
		KeyTracingService:   DefaultServiceName,
	}
}

// Enabled reports whether payloads are encrypted.
func (c Codec) Enabled() bool { return c.KeyFile != "" }

// Token returns the codec server's bearer token: AuthToken, or the
// trimmed content of AuthTokenFile (secretfile.Read), or "" when neither
// is set. It returns an error when the file cannot be read or is empty.
func (c Codec) Token() (string, error) {
	if c.AuthTokenFile == "" {
		return c.AuthToken, nil
	}
	tok, err := secretfile.Read(c.AuthTokenFile)
	if err != nil {
		return "", fmt.Errorf("%s: %w", KeyCodecAuthTokenFile, err)
	}
	return tok, nil
}

// problems lists what is wrong with the codec settings.
func (c Codec) problems() []string {
	var errs []string
	if c.AuthToken != "" && c.AuthTokenFile != "" {
		errs = append(errs, fmt.Sprintf("%s and %s: set one or neither", KeyCodecAuthToken, KeyCodecAuthTokenFile))
	}
	for _, o := range c.CORSOrigins {
		if o != "*" && !isOrigin(o) {
			errs = append(errs, fmt.Sprintf("%s: %q is not an origin such as http://localhost:8233 (or *)", KeyCodecCORSOrigins, o))
		}
	}
	if err := checkListen(c.Listen); err != nil {
		errs = append(errs, fmt.Sprintf("%s %q: %v", KeyCodecListen, c.Listen, err))
	}
	return errs
}

// problems lists what is wrong with the metrics settings.
func (m Metrics) problems() []string {
	if m.Address == "" {
		return nil
	}
	if err := checkListen(m.Address); err != nil {
		return []string{fmt.Sprintf("%s %q: %v", KeyMetricsAddress, m.Address, err)}
	}
	return nil
}

// problems lists what is wrong with the tracing settings.
func (t Tracing) problems() []string {
	var errs []string
	if t.OTLPEndpoint != "" && !isHTTPURL(t.OTLPEndpoint) {
		errs = append(errs, fmt.Sprintf("%s %q: want a URL such as http://127.0.0.1:4317", KeyTracingEndpoint, t.OTLPEndpoint))
	}
	if t.OTLPProtocol != OTLPGRPC && t.OTLPProtocol != OTLPHTTP {
		errs = append(errs, fmt.Sprintf("%s %q: want %s or %s", KeyTracingProtocol, t.OTLPProtocol, OTLPGRPC, OTLPHTTP))
	}
	if t.OTLPEndpoint != "" && strings.TrimSpace(t.ServiceName) == "" {
		errs = append(errs, fmt.Sprintf("%s must not be empty when tracing is on", KeyTracingService))
	}
	return errs
}

// isOrigin reports whether s is a browser origin: scheme and host, no
// path, query or user.
func isOrigin(s string) bool {
	u, err := url.Parse(s)
	return err == nil && (u.Scheme == "http" || u.Scheme == "https") && u.Host != "" &&
		u.Path == "" && u.RawQuery == "" && u.User == nil && u.Fragment == ""
}

// checkListen accepts host:port to listen on; an empty host listens on
// every interface, port 0 on a free port.
func checkListen(addr string) error {
	_, port, err := net.SplitHostPort(addr)
	if err != nil {
		return fmt.Errorf("want host:port")
	}
	if n, err := strconv.Atoi(port); err != nil || n < 0 || n > 65535 {
		return fmt.Errorf("port must be 0..65535")
	}
	return nil
}
