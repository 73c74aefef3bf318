package main

import (
	sdkworker "go.temporal.io/sdk/worker"

	"github.com/planmode/planmode/internal/config"
	"github.com/planmode/planmode/worker/planworker"
)

// workerOptions applies the worker settings: the sticky cache size through
// setCacheSize (sdkworker.SetStickyWorkflowCacheSize, which is
// process-wide and read when a worker is created, so it is set before
// any), and the rest as the worker's options. Zero counts keep the SDK's
// defaults; config.Validate has refused the values the SDK panics on.
// Heartbeats are sent at least every planworker.HeartbeatThrottle, so
// that a cancellation (a run's deadline, a cancelled run) reaches a
// running activity at its next beat.
func workerSettings(w config.Worker, setCacheSize func(int)) sdkworker.Options {
	setCacheSize(w.StickyCacheSize)
	return sdkworker.Options{
		MaxConcurrentActivityExecutionSize:     w.MaxConcurrentActivities,
		MaxConcurrentWorkflowTaskExecutionSize: w.MaxConcurrentWorkflowTasks,
		MaxConcurrentWorkflowTaskPollers:       w.WorkflowPollers,
		MaxConcurrentActivityTaskPollers:       w.ActivityPollers,
		StickyScheduleToStartTimeout:           w.StickyTimeout,
		DeploymentOptions:                      deploymentSettings(w),
		MaxHeartbeatThrottleInterval:           planworker.HeartbeatThrottle,
	}
}

// deploymentOptions makes the worker the build w.BuildID of the Worker
// Deployment w.DeploymentName, or leaves it unversioned when
// worker.versioning is off. Every workflow is registered with its own
// versioning behaviour (planworker.Register), so there is no default: the
// SDK refuses to register a workflow that has none.
func deploymentSettings(w config.Worker) sdkworker.DeploymentOptions {
	if !w.Versioning {
		return sdkworker.DeploymentOptions{}
	}
	return sdkworker.DeploymentOptions{
		UseVersioning: true,
		Version:       sdkworker.WorkerDeploymentVersion{DeploymentName: w.DeploymentName, BuildID: w.BuildID},
	}
}
