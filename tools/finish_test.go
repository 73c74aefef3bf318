package tools

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestFinishPlanAsksToExit(t *testing.T) {
	sb := newWorkspace(t, map[string]string{"a.go": "package a\n"})
	res, err := call(t, Builtin(DefaultConfig()), sb, FinishPlan, `{"reason":"  the tests already pass  "}`)
	require.NoError(t, err)
	assert.Equal(t, Result{Output: "the tests already pass", Exit: true, ExitReason: "the tests already pass"}, res)
	assert.Equal(t, "package a\n", readFile(t, sb, "a.go"), "the workspace is unchanged")
}

func TestFinishPlanRefusesBadArguments(t *testing.T) {
	tests := []struct {
		name, args, want string
	}{
		{"no reason", `{}`, `missing argument "reason"`},
		{"blank reason", `{"reason":"  "}`, `missing argument "reason"`},
		{"no arguments", ``, `missing argument "reason"`},
		{"unknown argument", `{"reason":"done","force":true}`, `unknown argument "force"`},
		{"wrong type", `{"reason":3}`, `invalid argument "reason": expected a string`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, err := call(t, Builtin(DefaultConfig()), newWorkspace(t, nil), FinishPlan, tt.args)
			requireToolError(t, err, tt.want)
			assert.False(t, res.Exit, "a refused call ends nothing")
		})
	}
}

func TestFinishPlanBoundsTheReason(t *testing.T) {
	long := strings.Repeat("é", maxExitReason)
	res, err := call(t, Builtin(DefaultConfig()), newWorkspace(t, nil), FinishPlan, `{"reason":"`+long+`"}`)
	require.NoError(t, err)
	assert.True(t, res.Exit)
	assert.LessOrEqual(t, len(res.ExitReason), maxExitReason+len("…"))
	assert.True(t, utf8.ValidString(res.ExitReason), "the cut falls on a rune boundary")
	assert.True(t, strings.HasSuffix(res.ExitReason, "…"))
}

func TestFinishPlanIsOfferedOnlyWhereChangesAre(t *testing.T) {
	reg := Builtin(DefaultConfig())
	tool, ok := reg.Get(FinishPlan)
	require.True(t, ok)
	assert.False(t, tool.ReadOnly)
	assert.NotContains(t, reg.ReadOnlyNames(), FinishPlan, "planning and reflection never see it")
	assert.Contains(t, specNames(reg.Specs(nil)), FinishPlan, "an agent step offered every tool sees it")
}
