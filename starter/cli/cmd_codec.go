package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
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

func newCodecServerCmd(d *deps) *cobra.Command {
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
			return serveCodec(cmd.Context(), d.cfg.Codec, d.out, d.errOut)
		},
	}
	cmd.Flags().String(config.FlagListen, "", "host:port to listen on (default "+config.DefaultCodecListen+"; codec.listen)")
	return cmd
}

// serveCodec runs the codec server of cfg until ctx ends, then shuts it
// down, announcing it on out (and a warning on errOut). It returns a
// rejection when no key file is configured, and an error when the keys or
// the token cannot be read or the address cannot be bound.
func serveCodec(ctx context.Context, cfg config.Codec, out, errOut io.Writer) error {
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
	announceCodec(out, errOut, ln.Addr().String(), pc.Keys(), cfg.CORSOrigins, token != "")
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

// announceCodec tells the operator on out where the server listens and
// how to use it, and warns on errOut when anyone who reaches it may use
// it; the first line holds the URL, which scripts and tests read.
func announceCodec(out, errOut io.Writer, addr string, keys *codec.Keyring, origins []string, withToken bool) {
	url := "http://" + addr
	fmt.Fprintf(out, "codec server listening on %s\n", url)
	fmt.Fprintf(out, "  keys: %s encrypts; decrypts %s\n", keys.EncryptingKeyID(), strings.Join(keys.KeyIDs(), ", "))
	if len(origins) > 0 {
		fmt.Fprintf(out, "  Web UI origins: %s\n", strings.Join(origins, ", "))
	}
	auth := ""
	if withToken {
		auth = ` --codec-auth "Bearer $TOKEN"`
	}
	fmt.Fprintf(out, "  temporal workflow show -w PLAN --codec-endpoint %s%s\n", url, auth)
	if host, _, _ := net.SplitHostPort(addr); !withToken && !isLoopback(host) {
		fmt.Fprintf(errOut, "planmode: warning: the codec server decrypts for anyone who reaches %s; set %s or listen on 127.0.0.1\n",
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
