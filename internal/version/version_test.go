package version

import (
	"runtime/debug"
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestFromBuildInfo(t *testing.T) {
	const rev = "a6c9704e0c0e1f2a3b4c5d6e7f8091a2b3c4d5e6"
	cases := []struct {
		name     string
		main     string
		settings map[string]string
		want     string
	}{
		{name: "released module", main: "v1.4.0", want: "v1.4.0"},
		{name: "stamped pseudo-version", main: "v0.0.0-20251123193600-a6c9704e0c0e+dirty",
			settings: map[string]string{"vcs.revision": rev}, want: "v0.0.0-20251123193600-a6c9704e0c0e+dirty"},
		{name: "commit", main: "(devel)", settings: map[string]string{"vcs.revision": rev, "vcs.modified": "false"},
			want: "a6c9704e0c0e"},
		{name: "commit with changes", main: "(devel)", settings: map[string]string{"vcs.revision": rev, "vcs.modified": "true"},
			want: "a6c9704e0c0e+dirty"},
		{name: "short commit", settings: map[string]string{"vcs.revision": "abc123"}, want: "abc123"},
		{name: "nothing known", main: "(devel)", want: Devel},
		{name: "empty", want: Devel},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			info := &debug.BuildInfo{Main: debug.Module{Path: "github.com/planmode/planmode", Version: tc.main}}
			for k, v := range tc.settings {
				info.Settings = append(info.Settings, debug.BuildSetting{Key: k, Value: v})
			}
			assert.Equal(t, tc.want, fromBuildInfo(info))
		})
	}
}

func TestVersionPrefersTheLinkTimeVersion(t *testing.T) {
	defer func(old string) { version = old }(version)
	version = "v9.9.9"
	assert.Equal(t, "v9.9.9", Version())
}

func TestVersionWithoutLinkTimeVersionIsNeverEmpty(t *testing.T) {
	defer func(old string) { version = old }(version)
	version = ""
	info, ok := debug.ReadBuildInfo()
	if !ok {
		assert.Equal(t, Devel, Version())
		return
	}
	assert.Equal(t, fromBuildInfo(info), Version())
	assert.NotEmpty(t, Version())
}

func TestCommitOf(t *testing.T) {
	const rev = "a6c9704e0c0e1f2a3b4c5d6e7f8091a2b3c4d5e6"
	withRev := &debug.BuildInfo{Settings: []debug.BuildSetting{{Key: "vcs.revision", Value: rev}, {Key: "vcs.modified", Value: "true"}}}
	assert.Equal(t, "a6c9704e0c0e", commitOf(withRev), "12 hex digits; the dirty mark belongs to the version")
	assert.Equal(t, Unknown, commitOf(&debug.BuildInfo{}))
}

func TestSDKOf(t *testing.T) {
	info := &debug.BuildInfo{Deps: []*debug.Module{
		{Path: "go.temporal.io/api", Version: "v1.63.5"},
		{Path: "go.temporal.io/sdk", Version: "v1.50.0"},
	}}
	assert.Equal(t, "v1.50.0", sdkOf(info))
	info.Deps[1].Replace = &debug.Module{Path: "../sdk-go"}
	assert.Equal(t, "v1.50.0", sdkOf(info), "a local replacement has no version of its own")
	info.Deps[1].Replace = &debug.Module{Path: "github.com/fork/sdk-go", Version: "v1.50.1-fix"}
	assert.Equal(t, "v1.50.1-fix", sdkOf(info))
	assert.Equal(t, Unknown, sdkOf(&debug.BuildInfo{}), "a binary without the SDK")
}

func TestCommitPrefersTheLinkTimeCommit(t *testing.T) {
	defer func(old string) { commit = old }(commit)
	commit = "abc123def456"
	assert.Equal(t, "abc123def456", Commit())
	commit = ""
	assert.NotEmpty(t, Commit())
}

func TestStringNamesVersionCommitAndSDK(t *testing.T) {
	defer func(v, c string) { version, commit = v, c }(version, commit)
	version, commit = "0.1.0", "abc123def456"
	assert.Equal(t, "planmode 0.1.0 (commit abc123def456, Temporal Go SDK "+SDK()+")", String("planmode"))
}
