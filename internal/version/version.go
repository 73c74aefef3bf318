// Package version says which build of planmode is running, so that an
// operator reading `planmode version`, `planmode-worker --version` or the
// worker's start line can tell which code answers, from which commit, on
// which Temporal Go SDK.
//
// A release build sets the version and the commit at link time, as
// `make build` and the Dockerfile do:
//
//	go build -ldflags "-X github.com/planmode/planmode/internal/version.version=0.1.0 \
//	  -X github.com/planmode/planmode/internal/version.commit=abc123def456" ./starter
//
// Without them, the Go toolchain's build information says what it can:
// the module version (`go install …@v0.1.0`, or the pseudo-version the
// toolchain stamps from the commit), else the commit itself.
package version

import (
	"fmt"
	"runtime/debug"
)

// Devel is the version of a build that carries no version and no commit
// (go run, go test, a build outside a git checkout).
const Devel = "devel"

// Unknown stands for a commit or an SDK version the build does not say.
const Unknown = "unknown"

// sdkModule is the Temporal Go SDK's module path.
const sdkModule = "go.temporal.io/sdk"

// version and commit are the release and the commit the binary was built
// from, set with -ldflags -X. They are variables, not constants, because
// only a variable can be set at link time.
var (
	version string
	commit  string
)

// revisionLength is how much of a commit hash Version shows, as git's
// short hashes do.
const revisionLength = 12

// Version returns the version of the running binary: the link-time
// version when one was set, else the module version from the build
// information, else the commit (with "+dirty" when the tree had changes),
// else [Devel].
func Version() string {
	if version != "" {
		return version
	}
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return Devel
	}
	return fromBuildInfo(info)
}

// Commit returns the commit the binary was built from: the link-time
// commit when one was set, else the revision the toolchain recorded (12
// hex digits), else [Unknown].
func Commit() string {
	if commit != "" {
		return commit
	}
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return Unknown
	}
	return commitOf(info)
}

// SDK returns the version of the Temporal Go SDK linked into the binary,
// from the build information, or [Unknown].
func SDK() string {
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return Unknown
	}
	return sdkOf(info)
}

// String is the line `program --version` prints:
//
//	planmode 0.1.0 (commit abc123def456, Temporal Go SDK v1.50.0)
func String(program string) string {
	return fmt.Sprintf("%s %s (commit %s, Temporal Go SDK %s)", program, Version(), Commit(), SDK())
}

// fromBuildInfo reads a version out of the toolchain's build information.
func fromBuildInfo(info *debug.BuildInfo) string {
	if v := info.Main.Version; v != "" && v != "(devel)" {
		return v
	}
	revision, dirty := revisionOf(info)
	if revision == "" {
		return Devel
	}
	if dirty {
		revision += "+dirty"
	}
	return revision
}

// commitOf reads the commit out of the toolchain's build information.
func commitOf(info *debug.BuildInfo) string {
	if revision, _ := revisionOf(info); revision != "" {
		return revision
	}
	return Unknown
}

// revisionOf returns the recorded revision, cut to revisionLength, and
// whether the tree had changes.
func revisionOf(info *debug.BuildInfo) (revision string, dirty bool) {
	for _, s := range info.Settings {
		switch s.Key {
		case "vcs.revision":
			revision = s.Value
		case "vcs.modified":
			dirty = s.Value == "true"
		}
	}
	if len(revision) > revisionLength {
		revision = revision[:revisionLength]
	}
	return revision, dirty
}

// sdkOf reads the Temporal Go SDK's version out of the build information,
// following a replace directive.
func sdkOf(info *debug.BuildInfo) string {
	for _, dep := range info.Deps {
		if dep.Path != sdkModule {
			continue
		}
		if dep.Replace != nil && dep.Replace.Version != "" {
			return dep.Replace.Version
		}
		if dep.Version != "" {
			return dep.Version
		}
	}
	return Unknown
}
