package mcpserver

import (
	"context"
	"encoding/json"
	"fmt"
	"iter"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/planmode/planmode/plan"
	"github.com/planmode/planmode/planclient"
	"github.com/planmode/planmode/signals"
)

// eventPlans is fakePlans with an event log: the test appends events,
// Events yields them as a follower of the real log would, and Standing
// answers the steps' totals the test set.
type eventPlans struct {
	*fakePlans
	// state is held while the test changes a plan: the fake reads its
	// plans' fields without its lock.
	state sync.RWMutex

	mu     sync.Mutex
	log    []signals.Event
	more   chan struct{}
	totals plan.Totals
}

func newEventPlans() *eventPlans {
	return &eventPlans{fakePlans: newFakePlans(), more: make(chan struct{})}
}

// emit appends an event of type typ to the log, after change ran on the
// plans.
func (e *eventPlans) emit(typ signals.EventType, step, msg string, change func()) {
	if change != nil {
		e.state.Lock()
		e.fakePlans.mu.Lock()
		change()
		e.fakePlans.mu.Unlock()
		e.state.Unlock()
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	ev := signals.Event{Seq: int64(len(e.log) + 1), Type: typ, Message: msg}
	if step != "" {
		ev.Step = &signals.StepRef{ID: step}
	}
	e.log = append(e.log, ev)
	close(e.more)
	e.more = make(chan struct{})
}

func (e *eventPlans) Events(ctx context.Context, _ string, after int64, _ ...planclient.FollowOption) iter.Seq2[signals.Event, error] {
	return func(yield func(signals.Event, error) bool) {
		for {
			e.mu.Lock()
			log, more := e.log, e.more
			e.mu.Unlock()
			for _, ev := range log {
				if ev.Seq > after {
					after = ev.Seq
					if !yield(ev, nil) {
						return
					}
				}
			}
			select {
			case <-ctx.Done():
				yield(signals.Event{}, ctx.Err())
				return
			case <-more:
			}
		}
	}
}

func (e *eventPlans) Standing(ctx context.Context, id string) (planclient.Standing, error) {
	e.state.RLock()
	st, err := e.fakePlans.Standing(ctx, id)
	e.state.RUnlock()
	e.mu.Lock()
	defer e.mu.Unlock()
	if st.Progress != nil {
		st.Progress.Totals = e.totals
	}
	return st, err
}

// heard are the notifications a client read, in order.
type heard struct {
	mu  sync.Mutex
	got []*jsonrpc.Request
	new chan struct{}
}

// await returns the first notification that matches ok, failing the
// test past a generous deadline.
func (h *heard) await(t *testing.T, ok func(*jsonrpc.Request) bool) *jsonrpc.Request {
	t.Helper()
	r := h.wait(ok, 30*time.Second)
	if r == nil {
		t.Fatal("no such notification")
	}
	return r
}

// wait returns the first notification that matches ok, or nil once
// timeout passed.
func (h *heard) wait(ok func(*jsonrpc.Request) bool, timeout time.Duration) *jsonrpc.Request {
	deadline := time.After(timeout)
	for seen := 0; ; {
		h.mu.Lock()
		got, ch := h.got, h.new
		h.mu.Unlock()
		for ; seen < len(got); seen++ {
			if ok(got[seen]) {
				return got[seen]
			}
		}
		select {
		case <-ch:
		case <-deadline:
			return nil
		}
	}
}

// listening is a client transport that records each notification read.
type listening struct {
	mcp.Transport
	h *heard
}

func (l listening) Connect(ctx context.Context) (mcp.Connection, error) {
	c, err := l.Transport.Connect(ctx)
	return listeningConn{c, l.h}, err
}

type listeningConn struct {
	mcp.Connection
	h *heard
}

func (c listeningConn) Read(ctx context.Context) (jsonrpc.Message, error) {
	m, err := c.Connection.Read(ctx)
	if r, ok := m.(*jsonrpc.Request); ok && !r.ID.IsValid() {
		c.h.mu.Lock()
		c.h.got = append(c.h.got, r)
		close(c.h.new)
		c.h.new = make(chan struct{})
		c.h.mu.Unlock()
	}
	return m, err
}

// connectHeard serves New(plans) over TaskTransport to a client whose
// notifications h records.
func connectHeard(t *testing.T, plans Plans) (*mcp.ClientSession, *heard) {
	t.Helper()
	ctx := context.Background()
	h := &heard{new: make(chan struct{})}
	ct, st := mcp.NewInMemoryTransports()
	ss, err := New(plans).Connect(ctx, TaskTransport(st), nil)
	require.NoError(t, err)
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "v0"}, nil).Connect(ctx, listening{ct, h}, nil)
	require.NoError(t, err)
	t.Cleanup(func() {
		_ = cs.Close()
		_ = ss.Close()
	})
	return cs, h
}

// statusOf is a notifications/tasks/status's task, or nil for another
// notification.
func statusOf(r *jsonrpc.Request) *Task {
	if r.Method != MethodTaskStatus {
		return nil
	}
	var task Task
	if json.Unmarshal(r.Params, &task) != nil {
		return nil
	}
	return &task
}

// TestTaskAugmentedCallNotifiesStatusAndProgress: after plan_start as a
// task with a progress token, the session is told each change of the
// task's status as the plan's log moves (input_required when it waits
// for a selection, completed once it ended), and the steps done with the
// step's event as the message; no carrier reaches the host.
func TestTaskAugmentedCallNotifiesStatusAndProgress(t *testing.T) {
	e := newEventPlans()
	cs, h := connectHeard(t, e)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	_, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: ToolStart, Arguments: map[string]any{"goal": "Add JWT authentication"},
		Meta: mcp.Meta{taskMetaKey: map[string]any{}, progressTokenKey: "tok-1"}})
	if err != nil {
		// The SDK's client has no type for a CreateTaskResult; what
		// matters is what the session is told next.
		t.Logf("tools/call as a task: %v", err)
	}
	id := "plan-1"
	e.emit(signals.EventAwaitingChanged, "", "waits for a selection", func() {
		p := e.plans[id]
		p.details, p.phase, p.awaiting = "## Plan", plan.PhaseAwaitingSelection, signals.AwaitingSelection
	})
	n := h.await(t, func(r *jsonrpc.Request) bool { s := statusOf(r); return s != nil && s.Status == TaskInputRequired })
	assert.Contains(t, statusOf(n).StatusMessage, "waits for selection")
	assert.Equal(t, id, statusOf(n).TaskID)

	e.mu.Lock()
	e.totals = plan.Totals{Total: 2, Completed: 1, Pending: 1}
	e.mu.Unlock()
	e.emit(signals.EventStepCompleted, "s1", "Write the tests", func() { e.plans[id].awaiting, e.plans[id].phase = signals.AwaitingNone, plan.PhaseExecuting })
	p := h.await(t, func(r *jsonrpc.Request) bool { return r.Method == "notifications/progress" })
	var progress mcp.ProgressNotificationParams
	require.NoError(t, json.Unmarshal(p.Params, &progress))
	assert.Equal(t, "tok-1", progress.ProgressToken)
	assert.Equal(t, 1.0, progress.Progress)
	assert.Equal(t, 2.0, progress.Total)
	assert.Equal(t, "step s1 completed: Write the tests", progress.Message)
	assert.JSONEq(t, `{"taskId":"plan-1"}`, string(mustJSON(t, progress.Meta[relatedTaskKey])), "tied to its task")

	e.emit(signals.EventEnded, "", "completed", func() { e.plans[id].running, e.plans[id].phase = false, plan.PhaseCompleted })
	h.await(t, func(r *jsonrpc.Request) bool { s := statusOf(r); return s != nil && s.Status == TaskCompleted })
	h.mu.Lock()
	defer h.mu.Unlock()
	for _, r := range h.got {
		assert.NotContains(t, string(r.Params), carrierKey, "a carrier never reaches the host")
	}
}

// TestUncarryEvent: over HTTP a carrier in a server-sent event becomes
// the notification it carries; any other event is left as it was.
func TestUncarryEvent(t *testing.T) {
	task, _ := json.Marshal(Task{TaskID: "p", Status: TaskWorking})
	params, _ := json.Marshal(map[string]any{"progressToken": carrierToken, "progress": 0,
		"_meta": map[string]any{carrierKey: carried{Method: MethodTaskStatus, Params: task}}})
	b, err := jsonrpc.EncodeMessage(&jsonrpc.Request{Method: "notifications/progress", Params: params})
	require.NoError(t, err)
	out := uncarryEvent(append(append([]byte("event: message\nid: 3\ndata: "), b...), '\n', '\n'))
	msg, err := jsonrpc.DecodeMessage(out[len("event: message\nid: 3\ndata: ") : len(out)-2])
	require.NoError(t, err, string(out))
	assert.Equal(t, MethodTaskStatus, msg.(*jsonrpc.Request).Method)
	assert.JSONEq(t, string(task), string(msg.(*jsonrpc.Request).Params))
	other := []byte("event: message\ndata: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/progress\",\"params\":{}}\n\n")
	assert.Equal(t, other, uncarryEvent(other))
}

// TestProgressIsBounded: a burst of step events is told in fewer
// notifications than events, at most one every NotifyEvery, the last
// with the latest step; the task's end is still told.
func TestProgressIsBounded(t *testing.T) {
	e := newEventPlans()
	cs, h := connectHeard(t, e)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	_, _ = cs.CallTool(ctx, &mcp.CallToolParams{Name: ToolStart, Arguments: map[string]any{"goal": "Add JWT authentication"},
		Meta: mcp.Meta{taskMetaKey: map[string]any{}, progressTokenKey: 7}})
	id := "plan-1"
	const steps = 50
	e.mu.Lock()
	e.totals = plan.Totals{Total: steps, Completed: steps}
	e.mu.Unlock()
	start := time.Now()
	for i := 1; i <= steps; i++ {
		e.emit(signals.EventStepCompleted, fmt.Sprintf("s%d", i), "done", func() {
			p := e.plans[id]
			p.details, p.phase, p.awaiting = "## Plan", plan.PhaseExecuting, signals.AwaitingNone
		})
	}
	burst := time.Since(start)
	h.await(t, func(r *jsonrpc.Request) bool {
		return r.Method == "notifications/progress" && strings.Contains(string(r.Params), fmt.Sprintf("step s%d completed", steps))
	})
	e.emit(signals.EventEnded, "", "completed", func() { e.plans[id].running, e.plans[id].phase = false, plan.PhaseCompleted })
	h.await(t, func(r *jsonrpc.Request) bool { s := statusOf(r); return s != nil && s.Status == TaskCompleted })

	h.mu.Lock()
	defer h.mu.Unlock()
	progress := 0
	for _, r := range h.got {
		if r.Method == "notifications/progress" {
			progress++
		}
	}
	assert.Less(t, progress, steps, "a burst is told together")
	assert.LessOrEqual(t, progress, int(burst/NotifyEvery)+2, "at most one every %s over a burst of %s", NotifyEvery, burst)
}

// TestTaskResultNotifiesWhileItWaits: a tasks/result that waits tells
// its session the task's status from the plan's log (here: waiting for
// a selection, before the person is asked), and stops telling once it
// answered.
func TestTaskResultNotifiesWhileItWaits(t *testing.T) {
	e := newEventPlans()
	p := e.add("ours", "")
	p.awaiting, p.phase = signals.AwaitingSelection, plan.PhaseAwaitingSelection
	e.endOnSelect = true
	e.emit(signals.EventAwaitingSelection, "", "waits for a selection", nil)
	h := &heard{new: make(chan struct{})}
	told := make(chan struct{})
	go func() {
		if h.wait(func(r *jsonrpc.Request) bool { s := statusOf(r); return s != nil && s.Status == TaskInputRequired }, 30*time.Second) != nil {
			close(told)
		}
	}()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	ct, st := mcp.NewInMemoryTransports()
	ss, err := New(e).Connect(ctx, TaskTransport(st), nil)
	require.NoError(t, err)
	c := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "v0"}, &mcp.ClientOptions{
		ElicitationHandler: func(ctx context.Context, _ *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			select {
			case <-told:
			case <-ctx.Done():
			}
			return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"optionId": "r1-o1"}}, nil
		}})
	require.NoError(t, mcp.AddSendingCustomMethod[*taskParams, *mcp.CallToolResult](c, MethodTasksResult))
	cs, err := c.Connect(ctx, listening{ct, h}, &mcp.ClientSessionOptions{ProtocolVersion: elicitingProtocol})
	require.NoError(t, err)
	t.Cleanup(func() {
		_ = cs.Close()
		_ = ss.Close()
	})
	res, err := mcp.CallCustomMethod[*taskParams, *mcp.CallToolResult](ctx, cs, MethodTasksResult, &taskParams{TaskID: "ours"})
	require.NoError(t, err)
	assert.False(t, res.IsError, text(res))
	select {
	case <-told:
	default:
		t.Fatal("the session was not told the task waited for input")
	}
}
