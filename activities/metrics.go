package activities

import (
	"context"

	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/client"
)

// metricsHandler is the activity's metrics handler, which reports through
// the worker's (the SDK's tally handler on metrics.address), or nil outside
// an activity (plain tests), where nothing is recorded.
func metricsHandler(ctx context.Context) client.MetricsHandler {
	if !activity.IsActivity(ctx) {
		return nil
	}
	return activity.GetMetricsHandler(ctx)
}
