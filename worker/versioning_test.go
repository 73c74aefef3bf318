package main

import (
	"context"
	"errors"
	"log/slog"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/client"
	sdkworker "go.temporal.io/sdk/worker"

	"github.com/planmode/planmode/internal/config"
)

// fakeDeployment is a Worker Deployment as Describe shows it, after a
// number of describes in which this build has not polled yet.
type fakeDeployment struct {
	mu          sync.Mutex
	absentFor   int
	describeErr error
	current     string
	changedAt   time.Time
	// setErrs fail the first SetCurrentVersion calls; each failure lets
	// "another worker" make other current.
	setErrs []error
	other   string
	sets    []client.WorkerDeploymentSetCurrentVersionOptions
}

func (f *fakeDeployment) Describe(context.Context, client.WorkerDeploymentDescribeOptions) (client.WorkerDeploymentDescribeResponse, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.describeErr != nil {
		return client.WorkerDeploymentDescribeResponse{}, f.describeErr
	}
	info := client.WorkerDeploymentInfo{Name: "planmode"}
	if f.absentFor > 0 {
		f.absentFor--
	} else {
		info.VersionSummaries = append(info.VersionSummaries, summary("b"))
	}
	if f.current != "" {
		info.VersionSummaries = append(info.VersionSummaries, summary(f.current))
		info.RoutingConfig.CurrentVersion = &sdkworker.WorkerDeploymentVersion{DeploymentName: "planmode", BuildID: f.current}
	}
	info.RoutingConfig.CurrentVersionChangedTime = f.changedAt
	return client.WorkerDeploymentDescribeResponse{ConflictToken: []byte("token-" + f.current), Info: info}, nil
}

func (f *fakeDeployment) SetCurrentVersion(_ context.Context, o client.WorkerDeploymentSetCurrentVersionOptions) (client.WorkerDeploymentSetCurrentVersionResponse, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.sets = append(f.sets, o)
	if len(f.setErrs) > 0 {
		err := f.setErrs[0]
		f.setErrs = f.setErrs[1:]
		f.current = f.other
		return client.WorkerDeploymentSetCurrentVersionResponse{}, err
	}
	f.current = o.BuildID
	return client.WorkerDeploymentSetCurrentVersionResponse{}, nil
}

func summary(buildID string) client.WorkerDeploymentVersionSummary {
	return client.WorkerDeploymentVersionSummary{Version: sdkworker.WorkerDeploymentVersion{DeploymentName: "planmode", BuildID: buildID}}
}

// settle runs settleCurrent for build b on f and returns its answer and
// log.
func settle(t *testing.T, ctx context.Context, f *fakeDeployment, promote bool) (bool, string) {
	t.Helper()
	var log syncBuffer
	s := settling{h: f, w: config.Worker{Versioning: true, DeploymentName: "planmode", BuildID: "b", Promote: promote},
		namespace: "default", logger: slog.New(slog.NewTextHandler(&log, nil)), timeout: 500 * time.Millisecond, poll: time.Millisecond}
	return s.settleCurrent(ctx), log.String()
}

const promoteCommand = "temporal worker deployment set-current-version --namespace default --deployment-name planmode --build-id b"

func TestFirstBuildOfADeploymentBecomesCurrent(t *testing.T) {
	f := &fakeDeployment{absentFor: 3}
	current, log := settle(t, context.Background(), f, false)
	assert.True(t, current)
	require.Len(t, f.sets, 1, "it waited for the build to appear, then made it current once")
	assert.Equal(t, client.WorkerDeploymentSetCurrentVersionOptions{BuildID: "b", ConflictToken: []byte("token-")}, f.sets[0],
		"with the describe's conflict token, so that a concurrent change wins")
	assert.Contains(t, log, `msg="made this build the deployment's current version" deployment=planmode buildId=b previous=none`)
}

func TestLaterBuildWaitsForTheOperator(t *testing.T) {
	f := &fakeDeployment{current: "a"}
	current, log := settle(t, context.Background(), f, false)
	assert.False(t, current)
	assert.Empty(t, f.sets, "the current build stays current")
	assert.Contains(t, log, "level=WARN")
	assert.Contains(t, log, "current=a")
	assert.Contains(t, log, promoteCommand, "the log says how to make this build current")
}

func TestPromoteMakesALaterBuildCurrent(t *testing.T) {
	f := &fakeDeployment{current: "a"}
	current, log := settle(t, context.Background(), f, true)
	assert.True(t, current)
	require.Len(t, f.sets, 1)
	assert.Equal(t, "b", f.current)
	assert.Contains(t, log, "previous=a promoted=true")
}

func TestCurrentBuildStaysAsItIs(t *testing.T) {
	f := &fakeDeployment{current: "b"}
	current, log := settle(t, context.Background(), f, false)
	assert.True(t, current)
	assert.Empty(t, f.sets)
	assert.Contains(t, log, "this build is the deployment's current version")
}

func TestUnversionedChosenByAnOperatorIsKept(t *testing.T) {
	f := &fakeDeployment{changedAt: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)}
	current, log := settle(t, context.Background(), f, false)
	assert.False(t, current)
	assert.Empty(t, f.sets, "an operator sent new plans to unversioned workers on purpose")
	assert.Contains(t, log, "unversioned workers")
	assert.Contains(t, log, promoteCommand)
}

func TestAnotherWorkerWinsTheRaceToBeFirst(t *testing.T) {
	f := &fakeDeployment{setErrs: []error{errors.New("conflict token mismatch")}, other: "a"}
	current, log := settle(t, context.Background(), f, false)
	assert.False(t, current, "the other build became current first")
	assert.Len(t, f.sets, 1, "no second try over it")
	assert.Contains(t, log, "current=a")
}

func TestFailureToSettleIsLoggedNotFatal(t *testing.T) {
	f := &fakeDeployment{describeErr: errors.New("deployments are disabled")}
	current, log := settle(t, context.Background(), f, false)
	assert.False(t, current)
	assert.Contains(t, log, "level=ERROR")
	assert.Contains(t, log, "deployments are disabled")
	assert.Contains(t, log, promoteCommand, "the error says what to run")
}

func TestSettlingStopsQuietlyWithTheWorker(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	current, log := settle(t, ctx, &fakeDeployment{describeErr: context.Canceled}, false)
	assert.False(t, current)
	assert.NotContains(t, log, "level=ERROR", "a stopping worker has nothing to report")
}
