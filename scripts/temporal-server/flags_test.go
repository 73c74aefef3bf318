package main

import (
	"bytes"
	"context"
	"io"
	"net"
	"strconv"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	enumspb "go.temporal.io/api/enums/v1"
)

// TestParseFlagsTakesTheSDKCommandLine feeds parseFlags what the SDK's
// StartDevServer passes (after `server start-dev`) and checks every value.
func TestParseFlagsTakesTheSDKCommandLine(t *testing.T) {
	o, err := parseFlags([]string{
		"--ip", "localhost", "--port", "7299",
		"--namespace", "ns1",
		"--dynamic-config-value", "frontend.enableServerVersionCheck=false",
		"--log-level", "error", "--log-format", "json",
		"--db-filename", "/tmp/x.db", "--ui-port", "8299",
		"--search-attribute", "PlanStage=Keyword",
		"--search-attribute", "Progress=INDEXED_VALUE_TYPE_INT",
		"--search-attribute", "Awaiting=bool",
		"--dynamic-config-value", "history.transferProcessorMaxPollRPS=1000",
		"--dynamic-config-value", "x.float=1.5",
		"--dynamic-config-value", `x.list=[{"a":"b"}]`,
	}, io.Discard)
	require.NoError(t, err)
	assert.Equal(t, "127.0.0.1", o.ip, "the server needs an IP")
	assert.Equal(t, 7299, o.port)
	assert.Equal(t, 8299, o.uiPort)
	assert.Equal(t, "127.0.0.1", o.uiIP)
	assert.Equal(t, []string{"default", "ns1"}, o.namespaces)
	assert.Equal(t, "/tmp/x.db", o.dbFile)
	assert.Equal(t, "error", o.logLevel)
	assert.Equal(t, "json", o.logFormat)
	assert.False(t, o.headless)
	assert.Equal(t, map[string]enumspb.IndexedValueType{
		"PlanStage": enumspb.INDEXED_VALUE_TYPE_KEYWORD,
		"Progress":  enumspb.INDEXED_VALUE_TYPE_INT,
		"Awaiting":  enumspb.INDEXED_VALUE_TYPE_BOOL,
	}, o.searchAttrs)
	assert.Equal(t, map[string]any{
		"frontend.enableServerVersionCheck":   false,
		"history.transferProcessorMaxPollRPS": 1000, // an int: the server rejects other numeric types
		"x.float":                             1.5,
		"x.list":                              []any{map[string]any{"a": "b"}},
	}, o.dynConfig)
}

func TestParseFlagsDefaultsTheUIPortAndNamespace(t *testing.T) {
	o, err := parseFlags([]string{"--port", "7300", "--headless", "--namespace", "default"}, io.Discard)
	require.NoError(t, err)
	assert.Equal(t, 8300, o.uiPort, "the CLI's default UI port is --port + 1000")
	assert.Equal(t, []string{"default"}, o.namespaces)
	assert.True(t, o.headless)
	assert.Equal(t, "warn", o.logLevel)
}

func TestParseFlagsRejectsBadValues(t *testing.T) {
	for name, args := range map[string][]string{
		"attribute without type":  {"--search-attribute", "PlanStage"},
		"unknown attribute type":  {"--search-attribute", "PlanStage=Blob"},
		"config without value":    {"--dynamic-config-value", "limit.maxIDLength"},
		"config value not JSON":   {"--dynamic-config-value", "x=yes"},
		"config value trailing":   {"--dynamic-config-value", "x=1 2"},
		"unknown log level":       {"--log-level", "loud"},
		"unknown flag":            {"--frobnicate"},
		"stray positional":        {"extra"},
		"port that is not number": {"--port", "seven"},
	} {
		t.Run(name, func(t *testing.T) {
			_, err := parseFlags(args, io.Discard)
			assert.Error(t, err)
		})
	}
}

func TestRunPrintsVersionAndRejectsOtherCommands(t *testing.T) {
	var out, errOut bytes.Buffer
	require.Equal(t, 0, run(context.Background(), []string{"--version"}, &out, &errOut))
	assert.Equal(t, "temporal-server version 1.32.0 (Server 1.32.0, UI 2.54.1)\n", out.String())

	out.Reset()
	assert.Equal(t, 2, run(context.Background(), []string{"workflow", "list"}, &out, &errOut))
	assert.Empty(t, out.String())
	assert.Contains(t, errOut.String(), "usage")
}

// TestRunFailsWhenAPortIsTaken checks that a busy port is an error with
// status 1, not a server that never answers or a UI that exits the process.
func TestRunFailsWhenAPortIsTaken(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	defer l.Close()
	busy := strconv.Itoa(l.Addr().(*net.TCPAddr).Port)
	free := strconv.Itoa(freeLoopbackPort(t))
	for which, args := range map[string][]string{
		"frontend port": {"--port", busy, "--headless"},
		"UI port":       {"--port", free, "--ui-port", busy},
	} {
		var errOut bytes.Buffer
		code := run(context.Background(), append([]string{"server", "start-dev"}, args...), io.Discard, &errOut)
		assert.Equal(t, 1, code, which)
		assert.Contains(t, errOut.String(), which)
	}
}
