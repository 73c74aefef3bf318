package config

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/planmode/planmode/internal/version"
)

func TestVersioningIsOnByDefault(t *testing.T) {
	c, err := load(t, loadCase{})
	require.NoError(t, err)
	assert.True(t, c.Worker.Versioning)
	assert.Equal(t, DefaultDeploymentName, c.Worker.DeploymentName)
	assert.Equal(t, DefaultBuildID(), c.Worker.BuildID, "the build id comes from the binary")
	assert.NotEmpty(t, c.Worker.BuildID)
	assert.False(t, c.Worker.Promote, "a later build becomes current only when told")
}

func TestVersioningSettings(t *testing.T) {
	cases := []struct {
		name    string
		env     map[string]string
		check   func(t *testing.T, w Worker)
		wantErr string
	}{
		{name: "named build", env: map[string]string{"PLANMODE_WORKER_DEPLOYMENTNAME": "shop-planner",
			"PLANMODE_WORKER_BUILDID": "2.1.0", "PLANMODE_WORKER_PROMOTE": "true"},
			check: func(t *testing.T, w Worker) {
				assert.Equal(t, Worker{Versioning: true, DeploymentName: "shop-planner", BuildID: "2.1.0", Promote: true},
					Worker{Versioning: w.Versioning, DeploymentName: w.DeploymentName, BuildID: w.BuildID, Promote: w.Promote})
			}},
		{name: "off", env: map[string]string{"PLANMODE_WORKER_VERSIONING": "false"},
			check: func(t *testing.T, w Worker) { assert.False(t, w.Versioning) }},
		{name: "off ignores an odd name", env: map[string]string{"PLANMODE_WORKER_VERSIONING": "false",
			"PLANMODE_WORKER_DEPLOYMENTNAME": "a.b"}},
		{name: "promote needs versioning", env: map[string]string{"PLANMODE_WORKER_VERSIONING": "false",
			"PLANMODE_WORKER_PROMOTE": "true"}, wantErr: "worker.promote needs worker.versioning"},
		{name: "dot in the name", env: map[string]string{"PLANMODE_WORKER_DEPLOYMENTNAME": "plan.mode"},
			wantErr: `worker.deploymentName "plan.mode" must not hold "." or ":"`},
		{name: "colon in the name", env: map[string]string{"PLANMODE_WORKER_DEPLOYMENTNAME": "plan:mode"},
			wantErr: `must not hold "." or ":"`},
		{name: "empty name", env: map[string]string{"PLANMODE_WORKER_DEPLOYMENTNAME": " "},
			wantErr: "worker.deploymentName must not be empty when worker.versioning is on"},
		{name: "reserved build id", env: map[string]string{"PLANMODE_WORKER_BUILDID": "__x"},
			wantErr: `worker.buildId "__x" must not start with "__"`},
		{name: "long build id", env: map[string]string{"PLANMODE_WORKER_BUILDID": strings.Repeat("b", maxVersionPart+1)},
			wantErr: "worker.buildId must be at most 480 bytes"},
		{name: "dots in a build id are fine", env: map[string]string{"PLANMODE_WORKER_BUILDID": "1.2.3+abc"},
			check: func(t *testing.T, w Worker) { assert.Equal(t, "1.2.3+abc", w.BuildID) }},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c, err := load(t, loadCase{env: tc.env})
			if tc.wantErr != "" {
				require.ErrorContains(t, err, tc.wantErr)
				return
			}
			require.NoError(t, err)
			if tc.check != nil {
				tc.check(t, c.Worker)
			}
		})
	}
}

func TestBuildIDNamesVersionAndCommit(t *testing.T) {
	cases := []struct{ version, commit, want string }{
		{"0.1.0", "abc123def456", "0.1.0+abc123def456"},
		{"abc123def456", "abc123def456", "abc123def456"},
		{"abc123def456+dirty", "abc123def456", "abc123def456+dirty"},
		{"v0.1.0", version.Unknown, "v0.1.0"},
		{version.Devel, version.Unknown, version.Devel},
		{"v0.2.0-3-gabc123d-dirty", "abc123def456", "v0.2.0-3-gabc123d-dirty+abc123def456"},
	}
	for _, tc := range cases {
		assert.Equal(t, tc.want, buildID(tc.version, tc.commit), "version %q, commit %q", tc.version, tc.commit)
	}
}
