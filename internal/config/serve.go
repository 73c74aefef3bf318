package config

import (
	"fmt"
	"time"

	"github.com/spf13/pflag"
)

// Serve configures `planmode serve`, the HTTP server that people and
// services follow plans through (docs/serve.md).
type Serve struct {
	// Listen is the server's host:port: loopback unless set otherwise,
	// so that exposing it is a choice.
	Listen string `mapstructure:"listen"`
	// TokensFile holds the bearer tokens, one a line: TOKEN IDENTITY
	// [TENANT,...]. The server refuses to start without it and reads it
	// again when it changes.
	TokensFile string `mapstructure:"tokensFile"`
	// AllowedOrigins are the browser origins that may call the server; a
	// request from another origin is refused, one with no Origin (not a
	// browser's) is not.
	AllowedOrigins []string `mapstructure:"allowedOrigins"`
	// MaxConnections bounds the requests served at once, event streams
	// included; past it the server answers 503.
	MaxConnections int `mapstructure:"maxConnections"`
	// Heartbeat is how often an idle event stream gets a comment, which
	// keeps proxies from closing it.
	Heartbeat time.Duration `mapstructure:"heartbeat"`
}

// Keys of the serve section.
const (
	KeyServeListen         = "serve.listen"
	KeyServeTokensFile     = "serve.tokensFile"
	KeyServeAllowedOrigins = "serve.allowedOrigins"
	KeyServeMaxConnections = "serve.maxConnections"
	KeyServeHeartbeat      = "serve.heartbeat"
)

// Defaults of the serve section: the serve package's own (a test keeps
// them equal), spelt here so that the configuration need not import the
// server.
const (
	DefaultServeListen         = "127.0.0.1:8088"
	DefaultServeMaxConnections = 2000
	DefaultServeHeartbeat      = 15 * time.Second
)

// FlagTokensFile is planmode serve's --tokens-file.
const FlagTokensFile = "tokens-file"

// flagKeyAnnotation, on a flag, names the key it sets: for a flag whose
// name another command binds to another key (--listen is codec.listen
// for codec-server, serve.listen for serve).
const flagKeyAnnotation = "planmode/config-key"

// AddServeFlags adds planmode serve's --listen and --tokens-file.
func AddServeFlags(fs *pflag.FlagSet) {
	fs.String(FlagListen, "", "host:port to listen on (default "+DefaultServeListen+"; "+KeyServeListen+")")
	fs.String(FlagTokensFile, "", "file of bearer tokens, one a line: TOKEN IDENTITY [TENANT,...] ("+KeyServeTokensFile+")")
	// The flags were just added: SetAnnotation cannot fail.
	_ = fs.SetAnnotation(FlagListen, flagKeyAnnotation, []string{KeyServeListen})
	_ = fs.SetAnnotation(FlagTokensFile, flagKeyAnnotation, []string{KeyServeTokensFile})
}

// serveDefaults lists the defaults NewViper sets for the section.
func serveDefaults() map[string]any {
	return map[string]any{
		KeyServeListen:         DefaultServeListen,
		KeyServeMaxConnections: DefaultServeMaxConnections,
		KeyServeHeartbeat:      DefaultServeHeartbeat,
	}
}

// problems lists what is wrong with the serve settings.
func (s Serve) problems() []string {
	var errs []string
	if err := checkListen(s.Listen); err != nil {
		errs = append(errs, fmt.Sprintf("%s %q: %v", KeyServeListen, s.Listen, err))
	}
	for _, o := range s.AllowedOrigins {
		if !isOrigin(o) {
			errs = append(errs, fmt.Sprintf("%s: %q is not an origin such as https://ops.example.com", KeyServeAllowedOrigins, o))
		}
	}
	if s.MaxConnections <= 0 {
		errs = append(errs, fmt.Sprintf("%s must be positive", KeyServeMaxConnections))
	}
	if s.Heartbeat <= 0 {
		errs = append(errs, fmt.Sprintf("%s must be positive", KeyServeHeartbeat))
	}
	return errs
}
