package cli

import (
	"context"
	"fmt"
	"net/http"
	"time"

	"github.com/spf13/cobra"
)

// healthcheckTimeout bounds one probe: a container runtime runs it often.
const healthcheckTimeout = 3 * time.Second

// newHealthcheckCmd builds healthcheck, which probes a worker's /readyz or
// /healthz, for container health checks in images that have no curl. It
// needs nothing of the invocation.
func newHealthcheckCmd(*deps) *cobra.Command {
	return &cobra.Command{
		Use:     "healthcheck <url>",
		Short:   "Exit 0 when a worker's health endpoint answers 2xx, 1 otherwise",
		Example: `  planmode healthcheck http://127.0.0.1:9090/readyz`,
		Args:    cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return probe(cmd.Context(), args[0])
		},
	}
}

// probe GETs url and returns an error unless it answers 2xx in time.
func probe(ctx context.Context, url string) error {
	ctx, cancel := context.WithTimeout(ctx, healthcheckTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return rejectf(fmt.Sprintf("healthcheck: %v", err))
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return fmt.Errorf("healthcheck %s: %w", url, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		return fmt.Errorf("healthcheck %s: %s", url, resp.Status)
	}
	return nil
}
