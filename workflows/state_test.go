package workflows

import (
	"encoding/json"
	"fmt"
	// Aliased: reflect is the workflow helper that calls the Reflect activity.
	rf "reflect"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	sdktest "go.temporal.io/sdk/testsuite"
	"go.temporal.io/sdk/workflow"

	"github.com/planmode/planmode/signals"
)

// TestCheckpointRoundTrip starts a run from a request whose checkpoint has
// every field set, takes the run's checkpoint and expects the same state
// back, one run later. The checkpoint is filled by reflection, so a field
// added to signals.Checkpoint (or to any type inside it) is covered without
// touching this test; both ways go through the workflow's JSON payloads,
// as continue-as-new does.
func TestCheckpointRoundTrip(t *testing.T) {
	var cp signals.Checkpoint
	fillAll(t, rf.ValueOf(&cp).Elem(), "Checkpoint")
	requireNoZero(t, rf.ValueOf(cp), "Checkpoint")
	req := autoReq()
	req.Checkpoint = &cp

	var suite sdktest.WorkflowTestSuite
	env := suite.NewTestWorkflowEnvironment()
	env.SetContinuedExecutionRunID("the-previous-run")
	env.ExecuteWorkflow(func(ctx workflow.Context, req signals.StartRequest) (signals.Checkpoint, error) {
		return *newRun(ctx, req).handOn().Checkpoint, nil
	}, req)
	require.NoError(t, env.GetWorkflowError())
	var got signals.Checkpoint
	require.NoError(t, env.GetWorkflowResult(&got))

	want := cp
	want.Runs++
	require.Equal(t, want, got)
}

// TestRestoreThenCheckpointIsTheIdentity splits a checkpoint with every
// field set into the parts of a run and assembles it again: each part
// took its own, and nothing is lost or moved on the way.
func TestRestoreThenCheckpointIsTheIdentity(t *testing.T) {
	var cp signals.Checkpoint
	fillAll(t, rf.ValueOf(&cp).Elem(), "Checkpoint")
	r := wire(&run{})
	r.restore(cp)
	require.Equal(t, cp, r.checkpoint())
	assert.Equal(t, cp.ExecutionState, r.exec.st, "the executor's")
	assert.Equal(t, cp.ApprovalState, r.gate.st, "the gate's")
	assert.Equal(t, cp.InputState, r.ctl.st, "the controls'")
	assert.Equal(t, cp.NotifyState, r.hooks.st, "the notifier's")
	assert.Equal(t, cp.LeaseState, r.lease.st, "the lease's")
	assert.Equal(t, cp.Options, *r.sel.opts, "the selection's, in the cycle's")
}

// fillAll sets every field reachable from v to a non-zero value: structs
// field by field, one-element slices, one-entry maps, allocated pointers,
// non-zero times, JSON string literals for raw JSON. Every value differs
// (a counter feeds them), so a field restored into the wrong place shows
// too. It fails the test on a value it
// cannot fill (an unexported field, an interface a string cannot be).
func fillAll(t *testing.T, v rf.Value, path string) {
	t.Helper()
	(&filler{t: t}).fill(v, path)
}

// filler carries the test and the counter through the recursion.
type filler struct {
	t *testing.T
	n int
}

var (
	timeType = rf.TypeOf(time.Time{})
	rawType  = rf.TypeOf(json.RawMessage(nil))
)

func (f *filler) fill(v rf.Value, path string) {
	f.t.Helper()
	f.n++
	n := f.n
	if v.Type() == rawType {
		// Raw JSON must be JSON: a string literal, distinct as the rest.
		v.SetBytes(fmt.Appendf(nil, "%q", fmt.Sprintf("%s#%d", path, n)))
		return
	}
	switch v.Kind() {
	case rf.Bool:
		v.SetBool(true)
	case rf.Int, rf.Int8, rf.Int16, rf.Int32, rf.Int64:
		v.SetInt(int64(n))
	case rf.Uint, rf.Uint8, rf.Uint16, rf.Uint32, rf.Uint64:
		v.SetUint(uint64(n))
	case rf.Float32, rf.Float64:
		v.SetFloat(float64(n) + 0.5)
	case rf.String:
		v.SetString(fmt.Sprintf("%s#%d", path, n))
	case rf.Interface:
		s := rf.ValueOf(fmt.Sprintf("%s#%d", path, n))
		if !s.Type().AssignableTo(v.Type()) {
			f.t.Fatalf("%s: cannot fill an interface of type %s", path, v.Type())
		}
		v.Set(s)
	case rf.Pointer:
		v.Set(rf.New(v.Type().Elem()))
		f.fill(v.Elem(), path)
	case rf.Slice:
		s := rf.MakeSlice(v.Type(), 1, 1)
		f.fill(s.Index(0), path+"[0]")
		v.Set(s)
	case rf.Map:
		key := rf.New(v.Type().Key()).Elem()
		f.fill(key, path+".key")
		val := rf.New(v.Type().Elem()).Elem()
		f.fill(val, path+"[key]")
		m := rf.MakeMapWithSize(v.Type(), 1)
		m.SetMapIndex(key, val)
		v.Set(m)
	case rf.Struct:
		f.fillStruct(v, path)
	default:
		f.t.Fatalf("%s: no way to fill a %s", path, v.Kind())
	}
}

// fillStruct fills a struct's fields; a time is set whole, in UTC as JSON
// gives it back.
func (f *filler) fillStruct(v rf.Value, path string) {
	f.t.Helper()
	if v.Type() == timeType {
		v.Set(rf.ValueOf(time.Date(2030, 1, 2, 3, 4, 5, f.n, time.UTC)))
		return
	}
	for i := range v.NumField() {
		sf := v.Type().Field(i)
		if !sf.IsExported() {
			f.t.Fatalf("%s.%s is unexported: it cannot be filled, nor cross continue-as-new as JSON", path, sf.Name)
		}
		f.fill(v.Field(i), path+"."+sf.Name)
	}
}

// requireNoZero fails the test when any value reachable from v is zero,
// so a filler that misses a kind of field cannot pass silently.
func requireNoZero(t *testing.T, v rf.Value, path string) {
	t.Helper()
	if v.IsZero() {
		t.Fatalf("%s is zero after filling", path)
	}
	switch v.Kind() {
	case rf.Pointer, rf.Interface:
		requireNoZero(t, v.Elem(), path)
	case rf.Slice:
		for i := range v.Len() {
			requireNoZero(t, v.Index(i), fmt.Sprintf("%s[%d]", path, i))
		}
	case rf.Map:
		iter := v.MapRange()
		for iter.Next() {
			requireNoZero(t, iter.Key(), path+".key")
			requireNoZero(t, iter.Value(), path+"[key]")
		}
	case rf.Struct:
		if v.Type() == timeType {
			return
		}
		for i := range v.NumField() {
			requireNoZero(t, v.Field(i), path+"."+v.Type().Field(i).Name)
		}
	}
}
