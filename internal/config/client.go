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
	"go.temporal.io/sdk/temporal"

	"github.com/planmode/planmode/codec"
)

// ClientConfig returns the client configuration every planmode client dials Temporal
// with: the connection of c.Temporal (see [Temporal.ClientConfig]) and,
// when codec.keyFile is set, a data converter that encrypts every payload
// (workflow inputs and results, signals, updates, queries, memos, details)
// and a failure converter that encrypts failures' details, messages and
// stack traces: the SDK's default failure converter writes them with the
// default data converter, in plaintext, and a failed plan's details hold
// its whole Result, its message the steps' errors. Workers built on the
// client and the typed client planclient.New use both converters too.
// It returns an error when a TLS file or the key file cannot be read; the
// key file's errors name the line, never a key.
func (c Config) ClientConfig(logger *slog.Logger) (client.Options, error) {
	opts, err := c.Temporal.ClientConfig(logger)
	if err != nil {
		return opts, err
	}
	pc, err := c.Codec.PayloadCodec()
	if err != nil {
		return opts, err
	}
	if pc != nil {
		opts.DataConverter = codec.NewDataConverter(pc)
		opts.FailureConverter = temporal.NewDefaultFailureConverter(temporal.DefaultFailureConverterOptions{
			DataConverter: opts.DataConverter, EncodeCommonAttributes: true,
		})
	}
	return opts, nil
}

// PayloadCodec returns the AES-256-GCM codec of the key file, or nil when
// no key file is configured. It returns an error naming codec.keyFile and
// the line when the file cannot be read or holds a bad line.
func (c Codec) PayloadCodec() (*codec.Codec, error) {
	if !c.Enabled() {
		return nil, nil
	}
	keys, err := codec.LoadKeyFile(c.KeyFile)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", KeyCodecKeyFile, err)
	}
	return codec.New(keys), nil
}

// ClientConfig returns the connection settings to dial Temporal with:
// address, namespace, TLS when configured, and the API key as credentials
// (which turns TLS on by itself). logger may be nil. It sets no data
// converter: programs dial with [Config.ClientConfig], which adds the
// payload codec. It returns an error when a TLS file cannot be read.
func (t Temporal) ClientConfig(logger *slog.Logger) (client.Options, error) {
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
