package config

import (
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"io"
	"log/slog"
	"os"

	"go.temporal.io/sdk/client"
	sdklog "go.temporal.io/sdk/log"
)

// ClientOptions returns the options to dial Temporal with: address,
// namespace, TLS when configured, and the API key as credentials (which
// turns TLS on by itself). logger may be nil. It returns an error when a
// TLS file cannot be read.
func (t Temporal) ClientOptions(logger *slog.Logger) (client.Options, error) {
	opts := client.Options{HostPort: t.Address, Namespace: t.Namespace}
	if logger != nil {
		opts.Logger = sdklog.NewStructuredLogger(logger)
	}
	if t.TLS.Enabled() {
		tc, err := t.TLS.Config()
		if err != nil {
			return opts, err
		}
		opts.ConnectionOptions.TLS = tc
	}
	if t.APIKey != "" {
		opts.Credentials = client.NewAPIKeyStaticCredentials(t.APIKey)
	}
	return opts, nil
}

// Config builds the tls.Config of t: the client certificate when set, the
// CA pool when set, the server name when set.
func (t TLS) Config() (*tls.Config, error) {
	tc := &tls.Config{ServerName: t.ServerName, MinVersion: tls.VersionTLS12}
	if t.CertFile != "" {
		cert, err := tls.LoadX509KeyPair(t.CertFile, t.KeyFile)
		if err != nil {
			return nil, fmt.Errorf("temporal.tls: load client certificate: %w", err)
		}
		tc.Certificates = []tls.Certificate{cert}
	}
	if t.CAFile != "" {
		pem, err := os.ReadFile(t.CAFile)
		if err != nil {
			return nil, fmt.Errorf("temporal.tls.caFile: %w", err)
		}
		pool := x509.NewCertPool()
		if !pool.AppendCertsFromPEM(pem) {
			return nil, fmt.Errorf("temporal.tls.caFile %s holds no PEM certificate", t.CAFile)
		}
		tc.RootCAs = pool
	}
	return tc, nil
}

// NewLogger returns the slog logger l describes, writing to w.
func (l Log) NewLogger(w io.Writer) *slog.Logger {
	var level slog.Level
	if err := level.UnmarshalText([]byte(l.Level)); err != nil {
		level = slog.LevelInfo
	}
	opts := &slog.HandlerOptions{Level: level}
	if l.Format == LogJSON {
		return slog.New(slog.NewJSONHandler(w, opts))
	}
	return slog.New(slog.NewTextHandler(w, opts))
}
