// Package version says which build of planmode is running, so that an
// operator reading `planmode --version` or the worker's start line can
// tell which code answers.
//
// A release build sets it at link time:
//
//	go build -ldflags "-X github.com/planmode/planmode/internal/version.version=v1.4.0" ./starter
//
// Without that, the Go toolchain's build information says what it can:
// the module version (`go install …@v1.4.0`, or the pseudo-version the
// toolchain stamps from the commit), else the commit itself.
package version

import "runtime/debug"

// Devel is the version of a build that carries no version and no commit
// (go run, go test, a build outside a git checkout).
const Devel = "devel"

// version is the release the binary was built as, set with -ldflags -X. It
// is a variable, not a constant, because only a variable can be set at
// link time.
var version string

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

// fromBuildInfo reads a version out of the toolchain's build information.
func fromBuildInfo(info *debug.BuildInfo) string {
	if v := info.Main.Version; v != "" && v != "(devel)" {
		return v
	}
	var revision string
	var dirty bool
	for _, s := range info.Settings {
		switch s.Key {
		case "vcs.revision":
			revision = s.Value
		case "vcs.modified":
			dirty = s.Value == "true"
		}
	}
	if revision == "" {
		return Devel
	}
	if len(revision) > revisionLength {
		revision = revision[:revisionLength]
	}
	if dirty {
		revision += "+dirty"
	}
	return revision
}
