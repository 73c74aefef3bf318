package main

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	sdkworker "go.temporal.io/sdk/worker"

	"github.com/planmode/planmode/internal/config"
)

func TestWorkerOptionsApplyEverySetting(t *testing.T) {
	cacheSize := -1
	got := workerSettings(config.Worker{
		MaxConcurrentActivities: 16, MaxConcurrentWorkflowTasks: 8, WorkflowPollers: 4, ActivityPollers: 6,
		StickyCacheSize: 500, StickyTimeout: 2 * time.Second,
	}, func(n int) { cacheSize = n })
	assert.Equal(t, 500, cacheSize, "the process-wide sticky cache is sized")
	assert.Equal(t, sdkworker.Options{
		MaxConcurrentActivityExecutionSize:     16,
		MaxConcurrentWorkflowTaskExecutionSize: 8,
		MaxConcurrentWorkflowTaskPollers:       4,
		MaxConcurrentActivityTaskPollers:       6,
		StickyScheduleToStartTimeout:           2 * time.Second,
		MaxHeartbeatThrottleInterval:           time.Second,
	}, got)
}

func TestWorkerOptionsDefaultsAreTheSDKsButTheCache(t *testing.T) {
	cacheSize := -1
	got := workerSettings(config.Worker{StickyCacheSize: config.DefaultStickyCacheSize}, func(n int) { cacheSize = n })
	assert.Equal(t, config.DefaultStickyCacheSize, cacheSize)
	assert.Equal(t, sdkworker.Options{MaxHeartbeatThrottleInterval: time.Second}, got,
		"zero options are the SDK's defaults, but for the heartbeats' throttle")
}

// TestWorkerSendsHeartbeatsSoonEnoughToHearACancellation: an activity
// hears of its cancellation only in the answer to a heartbeat the SDK
// sent, and the SDK sends one per 0.8 × the heartbeat timeout unless the
// worker bounds it. A command step that beats as it starts and takes 10 s
// then never heard of a 3 s deadline: it ran to its end and its plan
// recorded it completed (README: "at the deadline running steps are
// cancelled").
func TestWorkerSendsHeartbeatsSoonEnoughToHearACancellation(t *testing.T) {
	got := workerSettings(config.Worker{StickyCacheSize: config.DefaultStickyCacheSize}, func(int) {})
	assert.NotZero(t, got.MaxHeartbeatThrottleInterval, "the SDK's default holds heartbeats back for 24 s")
	assert.LessOrEqual(t, got.MaxHeartbeatThrottleInterval, time.Second)
}

func TestWorkerOptionsMakeTheWorkerABuildOfItsDeployment(t *testing.T) {
	got := workerSettings(config.Worker{StickyCacheSize: 1, Versioning: true, DeploymentName: "planmode", BuildID: "0.2.0+abc"}, func(int) {})
	assert.Equal(t, sdkworker.DeploymentOptions{
		UseVersioning: true,
		Version:       sdkworker.WorkerDeploymentVersion{DeploymentName: "planmode", BuildID: "0.2.0+abc"},
	}, got.DeploymentOptions)

	off := workerSettings(config.Worker{StickyCacheSize: 1, Versioning: false, DeploymentName: "planmode", BuildID: "x"}, func(int) {})
	assert.Equal(t, sdkworker.DeploymentOptions{}, off.DeploymentOptions, "worker.versioning: false is unversioned")
}
