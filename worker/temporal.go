package main

import (
	"context"
	"fmt"
	"time"

	"go.temporal.io/sdk/client"

	"github.com/planmode/planmode/internal/config"
)

// dialTimeout bounds the first connection to Temporal, so that a wrong
// address fails fast instead of hanging.
const dialTimeout = 5 * time.Second

// dial connects to Temporal with opts. It returns an error naming the
// address and how to start a server when Temporal cannot be reached.
func dial(ctx context.Context, t config.Temporal, opts client.Options) (client.Client, error) {
	ctx, cancel := context.WithTimeout(ctx, dialTimeout)
	defer cancel()
	c, err := client.DialContext(ctx, opts)
	if err != nil {
		return nil, fmt.Errorf("cannot reach Temporal at %s: %w; start one with `make dev-server` or set temporal.address", t.Address, err)
	}
	return c, nil
}
