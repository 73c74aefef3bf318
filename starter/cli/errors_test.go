package cli

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.temporal.io/api/serviceerror"
	"go.temporal.io/sdk/temporal"

	"github.com/planmode/planmode/internal/config"
	"github.com/planmode/planmode/internal/devserver"
	"github.com/planmode/planmode/signals"
)

func TestExitCode(t *testing.T) {
	cases := []struct {
		name string
		err  error
		want int
	}{
		{"success", nil, exitOK},
		{"unreachable", &unreachableError{address: "x:1", err: errors.New("dial")}, exitUnreachable},
		{"service unavailable", fmt.Errorf("query: %w", serviceerror.NewUnavailable("down")), exitUnreachable},
		{"unknown plan", fmt.Errorf("plan p: %w", serviceerror.NewNotFound("workflow not found")), exitNotFound},
		{"unknown namespace", serviceerror.NewNamespaceNotFound("nope"), exitNotFound},
		{"validator rejection", fmt.Errorf("update select-option: %w",
			temporal.NewApplicationError("rejected: unknown option \"o9\"", "*fmt.wrapError")), exitRejected},
		{"typed rejection", temporal.NewApplicationError("unknown option", errorTypeRejected), exitRejected},
		{"local rejection", rejectf("give --answer"), exitRejected},
		{"wrapped sentinel", fmt.Errorf("%w: wrong phase", signals.ErrRejected), exitRejected},
		{"invalid argument", serviceerror.NewInvalidArgument("bad query"), exitRejected},
		{"plan id in use", fmt.Errorf("start plan p: %w", serviceerror.NewWorkflowExecutionAlreadyStarted("started", "", "")), exitRejected},
		{"plan failed", &endedError{status: signals.StatusFailed}, exitNotDone},
		{"activity failure", temporal.NewApplicationError("boom", "Boom"), exitOther},
		{"anything else", errors.New("disk full"), exitOther},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.want, exitCode(tc.err))
		})
	}
}

// newTestDeps returns the dependencies of an invocation writing to
// buffers, not interactive, with no PLANMODE_ variables in the way.
func newTestDeps(t *testing.T, in string) (*deps, *bytes.Buffer, *bytes.Buffer) {
	t.Helper()
	t.Chdir(t.TempDir())
	t.Setenv(config.ConfigEnv, "")
	t.Setenv(config.EnvName(config.KeyAddress), "")
	var out, errOut bytes.Buffer
	d := newDeps(bytes.NewBufferString(in), &out, &errOut)
	d.interactive = func() bool { return false }
	d.dialTimeout = time.Second
	d.pollInterval = 20 * time.Millisecond
	return d, &out, &errOut
}

func TestRunExitCodes(t *testing.T) {
	port, err := devserver.FreePort()
	require.NoError(t, err)
	nowhere := "127.0.0.1:" + strconv.Itoa(port)
	cases := []struct {
		name    string
		args    []string
		want    int
		wantErr string
	}{
		{name: "bad output", args: []string{"list", "--output", "xml"}, want: exitRejected, wantErr: `--output "xml"`},
		{name: "no goal", args: []string{"start", "--address", nowhere}, want: exitOther, wantErr: "requires at least 1 arg"},
		{name: "Temporal unreachable", args: []string{"list", "--address", nowhere}, want: exitUnreachable,
			wantErr: "cannot reach Temporal at " + nowhere},
		{name: "select needs a choice without a terminal", args: []string{"select", "plan-1", "--address", nowhere},
			want: exitRejected, wantErr: "give an option id or --rank"},
		{name: "confirm needs a verdict", args: []string{"confirm-skip", "plan-1", "r1"}, want: exitRejected,
			wantErr: "exactly one of --approve or --deny"},
		{name: "answer needs answers", args: []string{"answer", "plan-1"}, want: exitRejected, wantErr: "give --answer or --file"},
		{name: "edit needs a file", args: []string{"edit", "plan-1"}, want: exitRejected, wantErr: "--file is required"},
		{name: "bad configuration", args: []string{"list", "--address", "nohost"}, want: exitOther, wantErr: "temporal.address"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			d, _, errOut := newTestDeps(t, "")
			got := run(context.Background(), d, tc.args)
			assert.Equal(t, tc.want, got)
			assert.Contains(t, errOut.String(), tc.wantErr)
		})
	}
}
