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
	got := workerOptions(config.Worker{
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
	}, got)
}

func TestWorkerOptionsDefaultsAreTheSDKsButTheCache(t *testing.T) {
	cacheSize := -1
	got := workerOptions(config.Worker{StickyCacheSize: config.DefaultStickyCacheSize}, func(n int) { cacheSize = n })
	assert.Equal(t, config.DefaultStickyCacheSize, cacheSize)
	assert.Equal(t, sdkworker.Options{}, got, "zero options are the SDK's defaults")
}

func TestWorkerOptionsMakeTheWorkerABuildOfItsDeployment(t *testing.T) {
	got := workerOptions(config.Worker{StickyCacheSize: 1, Versioning: true, DeploymentName: "planmode", BuildID: "0.2.0+abc"}, func(int) {})
	assert.Equal(t, sdkworker.DeploymentOptions{
		UseVersioning: true,
		Version:       sdkworker.WorkerDeploymentVersion{DeploymentName: "planmode", BuildID: "0.2.0+abc"},
	}, got.DeploymentOptions)

	off := workerOptions(config.Worker{StickyCacheSize: 1, Versioning: false, DeploymentName: "planmode", BuildID: "x"}, func(int) {})
	assert.Equal(t, sdkworker.DeploymentOptions{}, off.DeploymentOptions, "worker.versioning: false is unversioned")
}
