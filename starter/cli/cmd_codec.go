package cli

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/planmode/planmode/codec"
	"github.com/planmode/planmode/internal/config"
)

// codecShutdownTimeout bounds how long the codec server lets requests in
// flight finish once asked to stop.
const codecShutdownTimeout = 5 * time.Second

func (a *app) codecServerCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "codec-server",
		Short: "Serve the payload codec so the Web UI and the temporal CLI can read encrypted plans",
		Long: `codec-server decrypts (and encrypts) payloads for the Temporal Web UI and the temporal CLI with
the keys of codec.keyFile, speaking Temporal's remote codec protocol (POST /encode, POST /decode).
Point the Web UI's codec endpoint at it (the origin must be in codec.corsOrigins), or run
  temporal workflow show -w PLAN --codec-endpoint http://127.0.0.1:8081
With codec.authToken set, every request must carry "Authorization: Bearer TOKEN"
(temporal --codec-auth "Bearer TOKEN"). It runs until interrupted.`,
		Example: `  planmode codec-server --listen 127.0.0.1:8081`,
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return a.serveCodec(cmd.Context())
		},
	}
	cmd.Flags().String(config.FlagListen, "", "host:port to listen on (default "+config.DefaultCodecListen+"; codec.listen)")
	return cmd
}

// serveCodec runs the codec server until ctx ends, then shuts it down. It
// returns a rejection when no key file is configured, and an error when
// the keys or the token cannot be read or the address cannot be bound.
func (a *app) serveCodec(ctx context.Context) error {
	cfg := a.cfg.Codec
	pc, err := cfg.PayloadCodec()
	if err != nil {
		return err
	}
	if pc == nil {
		return rejectf(fmt.Sprintf("codec-server needs keys: set %s (%s) to the key file the worker uses",
			config.KeyCodecKeyFile, config.EnvName(config.KeyCodecKeyFile)))
	}
	token, err := cfg.Token()
	if err != nil {
		return err
	}
	ln, err := net.Listen("tcp", cfg.Listen)
	if err != nil {
		return fmt.Errorf("codec server: %w", err)
	}
	srv := &http.Server{
		Handler:           codec.NewHTTPHandler(pc, codec.ServerOptions{CORSOrigins: cfg.CORSOrigins, AuthToken: token}),
		ReadHeaderTimeout: 10 * time.Second,
	}
	a.announceCodec(ln.Addr().String(), pc.Keys(), token != "")
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ln) }()
	select {
	case err := <-served:
		return fmt.Errorf("codec server: %w", err)
	case <-ctx.Done():
	}
	sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), codecShutdownTimeout)
	defer cancel()
	if err := srv.Shutdown(sctx); err != nil && !errors.Is(err, http.ErrServerClosed) {
		return fmt.Errorf("codec server: shut down: %w", err)
	}
	return nil
}

// announceCodec tells the operator where the server listens and how to
// use it; the first line holds the URL, which scripts and tests read.
func (a *app) announceCodec(addr string, keys *codec.Keyring, withToken bool) {
	url := "http://" + addr
	fmt.Fprintf(a.out, "codec server listening on %s\n", url)
	fmt.Fprintf(a.out, "  keys: %s encrypts; decrypts %s\n", keys.EncryptingKeyID(), strings.Join(keys.KeyIDs(), ", "))
	if origins := a.cfg.Codec.CORSOrigins; len(origins) > 0 {
		fmt.Fprintf(a.out, "  Web UI origins: %s\n", strings.Join(origins, ", "))
	}
	auth := ""
	if withToken {
		auth = ` --codec-auth "Bearer $TOKEN"`
	}
	fmt.Fprintf(a.out, "  temporal workflow show -w PLAN --codec-endpoint %s%s\n", url, auth)
	if host, _, _ := net.SplitHostPort(addr); !withToken && !isLoopback(host) {
		fmt.Fprintf(a.errOut, "planmode: warning: the codec server decrypts for anyone who reaches %s; set %s or listen on 127.0.0.1\n",
			addr, config.KeyCodecAuthToken)
	}
}

// isLoopback reports whether host is a loopback address or name.
func isLoopback(host string) bool {
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}
