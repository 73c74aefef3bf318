package devserver

import (
	"context"
	"os/exec"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestSearchAttributeArgsNameTheContract(t *testing.T) {
	got := strings.Join(SearchAttributeArgs(), " ")
	assert.Equal(t, "--search-attribute PlanPhase=Keyword --search-attribute PlanAwaiting=Keyword --search-attribute PlanProgress=Int --search-attribute PlanGoal=Text", got)
}

func TestFindTemporalHonoursTheEnvironment(t *testing.T) {
	bin, err := FindTemporal(context.Background())
	require.NoError(t, err)
	t.Setenv(BinaryEnv, bin)
	got, err := FindTemporal(context.Background())
	require.NoError(t, err)
	assert.Equal(t, bin, got)

	t.Setenv(BinaryEnv, "/nonexistent/temporal")
	got, err = FindTemporal(context.Background())
	require.NoError(t, err)
	assert.NotEqual(t, "/nonexistent/temporal", got, "a missing override is ignored")
}

func TestFindServerIsTheProjectsOwnBuild(t *testing.T) {
	bin, err := FindServer(context.Background())
	require.NoError(t, err)
	out, err := exec.Command(bin, "--version").CombinedOutput()
	require.NoError(t, err, string(out))
	assert.Contains(t, string(out), "Server 1.32.0")
	assert.Contains(t, string(out), "UI 2.54.1")

	t.Setenv(ServerBinaryEnv, bin)
	got, err := FindServer(context.Background())
	require.NoError(t, err)
	assert.Equal(t, bin, got)
}

func TestRepoRootFindsTheModule(t *testing.T) {
	root, err := RepoRoot()
	require.NoError(t, err)
	assert.True(t, isModuleRoot(root))
}

func TestDynamicConfigArgsInKeyOrder(t *testing.T) {
	got := dynamicConfigArgs(map[string]string{"history.maximumSignalsPerExecution": "9500", "a.b": "true"})
	assert.Equal(t, []string{"--dynamic-config-value", "a.b=true",
		"--dynamic-config-value", "history.maximumSignalsPerExecution=9500"}, got)
	assert.Empty(t, dynamicConfigArgs(nil))
}
