package cli

import (
	"bytes"
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestHealthcheckExitsByStatus(t *testing.T) {
	ready := true
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		if !ready {
			http.Error(w, "not polling", http.StatusServiceUnavailable)
		}
	}))
	defer srv.Close()
	var out, errOut bytes.Buffer
	require.Equal(t, exitOK, Run(context.Background(), []string{"healthcheck", srv.URL + "/readyz"}, strings.NewReader(""), &out, &errOut))
	ready = false
	code := Run(context.Background(), []string{"healthcheck", srv.URL + "/readyz"}, strings.NewReader(""), &out, &errOut)
	require.NotEqual(t, exitOK, code)
	require.Contains(t, errOut.String(), "503")
}
