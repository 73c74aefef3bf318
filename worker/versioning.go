package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"go.temporal.io/sdk/client"

	"github.com/planmode/planmode/internal/config"
)

// Bounds of settleCurrent. A version appears in its deployment once the
// server has seen the worker poll, about a second after it starts; the
// worker waits that long and no longer than currentTimeout for it.
const (
	currentTimeout = 30 * time.Second
	currentPoll    = 250 * time.Millisecond
)

// settleDeployment settles, for a versioned worker that has started
// polling, whether its build is the deployment's current version
// (settleCurrent), and returns the fields the start log shows of it.
func settleDeployment(ctx context.Context, c client.Client, cfg config.Config, logger *slog.Logger) []any {
	if !cfg.Worker.Versioning {
		return []any{"versioning", false}
	}
	s := settling{h: c.WorkerDeploymentClient().GetHandle(cfg.Worker.DeploymentName), w: cfg.Worker,
		namespace: cfg.Temporal.Namespace, logger: logger, timeout: currentTimeout, poll: currentPoll}
	current := s.settleCurrent(ctx)
	return []any{"deployment", cfg.Worker.DeploymentName, "buildId", cfg.Worker.BuildID, "current", current}
}

// deploymentHandle is what settleCurrent needs of a Worker Deployment:
// the SDK's client.WorkerDeploymentHandle, or a fake.
type deploymentHandle interface {
	Describe(context.Context, client.WorkerDeploymentDescribeOptions) (client.WorkerDeploymentDescribeResponse, error)
	SetCurrentVersion(context.Context, client.WorkerDeploymentSetCurrentVersionOptions) (client.WorkerDeploymentSetCurrentVersionResponse, error)
}

// settling is one call of settleCurrent: the deployment, this build, and
// how long to wait for it.
type settling struct {
	h         deploymentHandle
	w         config.Worker
	namespace string
	logger    *slog.Logger
	timeout   time.Duration
	poll      time.Duration
}

// settleCurrent makes this build the deployment's current version when
// the deployment has none (the first worker of a deployment, so that a
// lone worker needs no rollout step) or worker.promote says so; otherwise
// it logs which build is current and the command that makes this one
// current. It waits, within s.timeout, for the build to appear in the
// deployment, which it does once the worker polls. It never fails the
// worker: when it cannot settle, it logs an error saying what to run. It
// reports whether this build is current.
func (s settling) settleCurrent(parent context.Context) bool {
	ctx, cancel := context.WithTimeout(parent, s.timeout)
	defer cancel()
	var last error
	for {
		done, err := s.try(ctx)
		if done {
			return err == nil
		}
		last = err
		select {
		case <-ctx.Done():
			if parent.Err() != nil {
				return false // the worker is stopping
			}
			if last == nil {
				last = fmt.Errorf("the build did not appear in deployment %s within %s", s.w.DeploymentName, s.timeout)
			}
			s.logger.Error("could not make this build the deployment's current version; plans may wait for a worker until it is",
				"deployment", s.w.DeploymentName, "buildId", s.w.BuildID, "error", last, "run", s.command())
			return false
		case <-time.After(s.poll):
		}
	}
}

// try describes the deployment once and acts on what it holds. done says
// whether settling is over (err is then nil when this build is current);
// otherwise err, if any, is why this try failed and another is due.
func (s settling) try(ctx context.Context) (done bool, err error) {
	d, err := s.h.Describe(ctx, client.WorkerDeploymentDescribeOptions{})
	if err != nil {
		return false, fmt.Errorf("describe deployment %s: %w", s.w.DeploymentName, err)
	}
	if !hasBuild(d.Info, s.w.BuildID) {
		return false, nil
	}
	rc := d.Info.RoutingConfig
	switch cur := rc.CurrentVersion; {
	case cur != nil && cur.BuildID == s.w.BuildID:
		s.logger.Info("this build is the deployment's current version", "deployment", s.w.DeploymentName, "buildId", s.w.BuildID)
		return true, nil
	case s.w.Promote:
	case cur != nil:
		s.logger.Warn("this build is not the deployment's current version: new plans start on the current one, plans pinned to this build run here",
			"deployment", s.w.DeploymentName, "buildId", s.w.BuildID, "current", cur.BuildID, "promote", s.command())
		return true, errNotCurrent
	case !rc.CurrentVersionChangedTime.IsZero():
		// An operator made unversioned workers current on purpose.
		s.logger.Warn("the deployment sends new plans to unversioned workers: this build takes none until it is made current",
			"deployment", s.w.DeploymentName, "buildId", s.w.BuildID, "since", rc.CurrentVersionChangedTime, "promote", s.command())
		return true, errNotCurrent
	}
	// The describe's conflict token makes the change fail when another
	// worker changed the deployment since: the next try sees what it did.
	_, err = s.h.SetCurrentVersion(ctx, client.WorkerDeploymentSetCurrentVersionOptions{
		BuildID: s.w.BuildID, ConflictToken: d.ConflictToken})
	if err != nil {
		return false, fmt.Errorf("set current version: %w", err)
	}
	previous := "none"
	if rc.CurrentVersion != nil {
		previous = rc.CurrentVersion.BuildID
	}
	s.logger.Info("made this build the deployment's current version", "deployment", s.w.DeploymentName,
		"buildId", s.w.BuildID, "previous", previous, "promoted", s.w.Promote)
	return true, nil
}

// errNotCurrent ends settling with this build polling but not current.
var errNotCurrent = errors.New("this build is not the deployment's current version")

// hasBuild reports whether the deployment holds the build.
func hasBuild(info client.WorkerDeploymentInfo, buildID string) bool {
	for _, v := range info.VersionSummaries {
		if v.Version.BuildID == buildID {
			return true
		}
	}
	return false
}

// command is the operator's command that makes this build current.
func (s settling) command() string {
	return fmt.Sprintf("temporal worker deployment set-current-version --namespace %s --deployment-name %s --build-id %s",
		s.namespace, s.w.DeploymentName, s.w.BuildID)
}
