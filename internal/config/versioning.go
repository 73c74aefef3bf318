package config

import (
	"fmt"
	"strings"

	"github.com/planmode/planmode/internal/version"
)

// Keys of worker versioning.
const (
	KeyVersioning     = "worker.versioning"
	KeyDeploymentName = "worker.deploymentName"
	KeyBuildID        = "worker.buildId"
	KeyPromote        = "worker.promote"
)

// DefaultDeploymentName is the Worker Deployment planmode's workers join
// unless worker.deploymentName says otherwise.
const DefaultDeploymentName = "planmode"

// maxVersionPart bounds a deployment name and a build id: the server
// refuses either past (limit.maxIDLength - 39) / 2, 480 characters with
// its default limit.
const maxVersionPart = 480

// versioningDefaults are the defaults of worker versioning; the build id
// has none here, Load derives it.
func versioningDefaults() map[string]any {
	return map[string]any{
		KeyVersioning:     true,
		KeyDeploymentName: DefaultDeploymentName,
	}
}

// DefaultBuildID is the build id of a worker that sets none: the version
// stamped into the binary (internal/version), followed by "+" and the
// commit when the version does not name it already, so that two builds
// of one version from different commits are two builds. A release built
// with `make build` or the Dockerfile gives "0.1.0+abc123def456"; a `go
// build` in a checkout gives the commit ("abc123def456", with "+dirty"
// for a tree with changes); a build that knows neither (go run, a build
// outside a checkout) gives "devel". Dirty trees and devel builds do not
// tell their code apart: every such build shares the id, as unversioned
// workers would. Set worker.buildId to name a build yourself.
func DefaultBuildID() string {
	return buildID(version.Version(), version.Commit())
}

// buildID joins a version and a commit as DefaultBuildID does.
func buildID(v, commit string) string {
	if commit == "" || commit == version.Unknown || strings.Contains(v, commit) {
		return v
	}
	return v + "+" + commit
}

// versioningProblems lists what is wrong with the versioning settings,
// as the server would refuse them: a deployment name with "." or ":", a
// name or build id that is empty, starts with "__" or is too long.
func (w Worker) versioningProblems() []string {
	if !w.Versioning {
		if w.Promote {
			return []string{fmt.Sprintf("%s needs %s", KeyPromote, KeyVersioning)}
		}
		return nil
	}
	var errs []string
	if strings.ContainsAny(w.DeploymentName, ".:") {
		errs = append(errs, fmt.Sprintf("%s %q must not hold \".\" or \":\"", KeyDeploymentName, w.DeploymentName))
	}
	for _, f := range []struct{ key, value string }{{KeyDeploymentName, w.DeploymentName}, {KeyBuildID, w.BuildID}} {
		switch {
		case strings.TrimSpace(f.value) == "":
			errs = append(errs, fmt.Sprintf("%s must not be empty when %s is on", f.key, KeyVersioning))
		case strings.HasPrefix(f.value, "__"):
			errs = append(errs, fmt.Sprintf("%s %q must not start with \"__\"", f.key, f.value))
		case len(f.value) > maxVersionPart:
			errs = append(errs, fmt.Sprintf("%s must be at most %d bytes", f.key, maxVersionPart))
		}
	}
	return errs
}
