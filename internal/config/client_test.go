package config

import (
	"bytes"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"math/big"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// writeCert writes a self-signed certificate and its key, returning their
// paths.
func writeCert(t *testing.T) (string, string) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	require.NoError(t, err)
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "planmode-test"},
		NotBefore: time.Unix(0, 0), NotAfter: time.Unix(0, 0).Add(100 * 365 * 24 * time.Hour),
		IsCA: true, BasicConstraintsValid: true,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	require.NoError(t, err)
	kder, err := x509.MarshalECPrivateKey(key)
	require.NoError(t, err)
	dir := t.TempDir()
	certPath, keyPath := filepath.Join(dir, "c.pem"), filepath.Join(dir, "k.pem")
	require.NoError(t, os.WriteFile(certPath, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), 0o600))
	require.NoError(t, os.WriteFile(keyPath, pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: kder}), 0o600))
	return certPath, keyPath
}

func TestClientOptions(t *testing.T) {
	certPath, keyPath := writeCert(t)
	notPEM := filepath.Join(t.TempDir(), "ca.txt")
	require.NoError(t, os.WriteFile(notPEM, []byte("hello"), 0o600))

	cases := []struct {
		name     string
		temporal Temporal
		wantTLS  bool
		wantCred bool
		wantErr  string
	}{
		{name: "plain", temporal: Temporal{Address: "127.0.0.1:7233", Namespace: "default"}},
		{name: "api key", temporal: Temporal{Address: "x.tmprl.cloud:7233", Namespace: "ns", APIKey: "k"}, wantCred: true},
		{name: "mutual TLS and CA", temporal: Temporal{Address: "a:1", Namespace: "ns",
			TLS: TLS{CertFile: certPath, KeyFile: keyPath, CAFile: certPath, ServerName: "srv"}}, wantTLS: true},
		{name: "missing cert", temporal: Temporal{TLS: TLS{CertFile: "/none.pem", KeyFile: "/none.key"}}, wantErr: "load client certificate"},
		{name: "CA not PEM", temporal: Temporal{TLS: TLS{CAFile: notPEM}}, wantErr: "holds no PEM certificate"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			opts, err := tc.temporal.ClientConfig(nil)
			if tc.wantErr != "" {
				require.ErrorContains(t, err, tc.wantErr)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tc.temporal.Address, opts.HostPort)
			assert.Equal(t, tc.temporal.Namespace, opts.Namespace)
			assert.Equal(t, tc.wantTLS, opts.ConnectionOptions.TLS != nil)
			assert.Equal(t, tc.wantCred, opts.Credentials != nil)
			if tc.wantTLS {
				assert.Equal(t, "srv", opts.ConnectionOptions.TLS.ServerName)
				assert.Len(t, opts.ConnectionOptions.TLS.Certificates, 1)
				assert.NotNil(t, opts.ConnectionOptions.TLS.RootCAs)
			}
		})
	}
}

func TestNewLogger(t *testing.T) {
	var buf bytes.Buffer
	Log{Level: "warn", Format: LogJSON}.NewLogger(&buf).Info("hidden")
	assert.Empty(t, buf.String(), "below the level")
	Log{Level: "warn", Format: LogJSON}.NewLogger(&buf).Warn("shown", "k", 1)
	assert.Contains(t, buf.String(), `"msg":"shown"`)
	buf.Reset()
	Log{Level: "debug", Format: LogText}.NewLogger(&buf).Debug("text")
	assert.Contains(t, buf.String(), "msg=text")
}
